// Every embedded chunk's vector held in memory (f32, or one byte a dimension when large: see
// QUANTIZE_ABOVE_FLOATS), kept in step with the vector log, scanned with usearch's SIMD
// `exactSearch`: the scan below the threshold, and the exact path above it.
import type * as USearchModule from "usearch";
import type { IndexLog, SeqHit } from "./log.js";
import type { USearch } from "./settings.js";

/**
 * Above this many floats (256 MB: 174,762 × 384) the exact path holds one signed byte a dimension
 * instead of four (1M × 384: 384 MB instead of 1.5 GB). Below it f32 stays: rescoring costs
 * ~40 ms a query (100k × 384: p50 48 ms in f32, 83–95 ms one-byte + rescore). Cosine ignores each vector's length, so
 * each vector is scaled to ±127 on its own; the scan then picks candidates and the caller
 * computes their distances again from the stored vectors (`rescore`).
 */
export const QUANTIZE_ABOVE_FLOATS = 64 * 1024 * 1024;

/**
 * How many candidates a one-byte scan hands on for `k` answers. Each costs a read of its stored
 * vector (about 1.2 ms: sqlite-vec reads its block). On the bench's clustered 384-dimension
 * vectors the exact top 10 ranked at most 12th in the one-byte scan, at 100,000 and at 1M.
 */
export function rescoreWidth(k: number): number {
  return 2 * k + 16;
}

/**
 * Writes `vector` scaled to ±127 at `offset`, and returns the angle (radians) between the two:
 * how far the byte copy's direction is from the vector's (Infinity for a zero or non-finite vector).
 */
export function quantizeInto(target: Int8Array, offset: number, vector: Float32Array): number {
  const n = vector.length;
  let max = 0;
  for (let i = 0; i < n; i++) {
    const value = vector[i] as number;
    if (value > max) max = value;
    else if (-value > max) max = -value;
  }
  const scale = max > 0 ? 127 / max : 0;
  let dot = 0;
  let norm = 0;
  let bytesNorm = 0;
  for (let i = 0; i < n; i++) {
    const value = vector[i] as number;
    // Math.round's floor(x + 0.5) without its cost (x is within ±127: the biased sum is positive).
    const byte = ((value * scale + 128.5) | 0) - 128;
    target[offset + i] = byte;
    dot += value * byte;
    norm += value * value;
    bytesNorm += byte * byte;
  }
  const cos = dot / Math.sqrt(norm * bytesNorm);
  // A zero vector gives 0 / 0, a non-finite one NaN: no direction to bound.
  return Number.isFinite(cos) ? Math.acos(Math.min(cos, 1)) : Number.POSITIVE_INFINITY;
}

/**
 * From this many vectors, an f32 matrix is scanned through its one-byte sketch first (`sketchSearch`):
 * below it the f32 scan takes a few tens of microseconds anyway.
 */
export const SKETCH_FROM = 2048;

/**
 * The fewest candidates the sketch hands on, and their least share of the vectors held: what
 * proving an answer took on the bench's clustered vectors (64 clusters; at 10,026 × 384 no query
 * was proven with 36 candidates and every one with 200; at 100,028, 1% with 160, all with 1,280).
 */
const SKETCH_WIDTH = 160;
const SKETCH_SHARE = 1 / 64;

/** Added to the proven bound: the error of usearch's own distance (measured below 1e-7). */
const DISTANCE_SLACK = 1e-6;

/** Vectors of all embedded chunks held in memory, kept in step with the log, scanned with SIMD. */
export class ExactMatrix {
  data: Float32Array | Int8Array;
  seqs: number[] = [];
  slots = new Map<number, number>();
  highWater = 0;
  /** One byte a dimension: distances from `search` are approximate (rescore the candidates). */
  readonly quantized: boolean;
  /**
   * Beside f32 data, the same vectors at one byte a dimension (a quarter of the memory more):
   * scanned first, they pick candidates whose f32 distances are then computed, and the bound
   * below proves no other vector comes nearer (`sketchSearch`). Made at the second scan of a
   * matrix (a matrix loaded for one or two finds, while an index is built, never pays for it).
   */
  sketch: Int8Array | undefined;
  /** Whether this f32 matrix may have a sketch (tests turn it off to compare). */
  sketches: boolean;
  /** Scans of the f32 data so far. */
  private fullScans = 0;
  /** The largest angle between a held vector and its sketch (never lowered when one is removed). */
  sketchError = 0;
  /** Answers the sketch proved (status and tests). */
  sketchAnswers = 0;
  /** The candidates' f32 rows, gathered for their distances (reused from search to search). */
  private gathered = new Float32Array(0);

  constructor(
    readonly dimensions: number,
    readonly fingerprint: string,
    capacity: number,
    options: { quantize?: boolean } = {},
  ) {
    this.quantized = options.quantize ?? capacity * dimensions > QUANTIZE_ABOVE_FLOATS;
    const length = Math.max(1024, capacity) * dimensions;
    this.data = this.quantized ? new Int8Array(length) : new Float32Array(length);
    this.sketches = !this.quantized;
  }

  set(seq: number, vector: Float32Array): void {
    let slot = this.slots.get(seq);
    if (slot === undefined) {
      slot = this.seqs.length;
      if ((slot + 1) * this.dimensions > this.data.length) {
        const grown = this.quantized ? new Int8Array(this.data.length * 2) : new Float32Array(this.data.length * 2);
        grown.set(this.data);
        this.data = grown;
        if (this.sketch) {
          const sketch = new Int8Array(this.data.length);
          sketch.set(this.sketch);
          this.sketch = sketch;
        }
      }
      this.seqs.push(seq);
      this.slots.set(seq, slot);
    }
    if (this.data instanceof Int8Array) quantizeInto(this.data, slot * this.dimensions, vector);
    else this.data.set(vector, slot * this.dimensions);
    if (this.sketch) this.sketchError = Math.max(this.sketchError, quantizeInto(this.sketch, slot * this.dimensions, vector));
  }

  remove(seq: number): void {
    const slot = this.slots.get(seq);
    if (slot === undefined) return;
    const last = this.seqs.length - 1;
    const lastSeq = this.seqs[last] as number;
    if (slot !== last) {
      this.data.copyWithin(slot * this.dimensions, last * this.dimensions, (last + 1) * this.dimensions);
      this.sketch?.copyWithin(slot * this.dimensions, last * this.dimensions, (last + 1) * this.dimensions);
      this.seqs[slot] = lastSeq;
      this.slots.set(lastSeq, slot);
    }
    this.seqs.pop();
    this.slots.delete(seq);
  }

  /** The vector held for a chunk (a view, valid until the next change); undefined when held in one byte a dimension. */
  vector(seq: number): Float32Array | undefined {
    const slot = this.slots.get(seq);
    if (slot === undefined || !(this.data instanceof Float32Array)) return undefined;
    return this.data.subarray(slot * this.dimensions, (slot + 1) * this.dimensions);
  }

  search(usearch: USearch, query: Float32Array, k: number): SeqHit[] {
    const n = this.seqs.length;
    if (n === 0) return [];
    if (this.sketches && n >= SKETCH_FROM && (this.sketch || this.fullScans > 0)) {
      const proven = this.sketchSearch(usearch, this.sketch ?? this.makeSketch(), query, Math.min(k, n));
      if (proven) return proven;
    }
    if (!this.quantized) this.fullScans++;
    const dataset = this.data.subarray(0, n * this.dimensions);
    let probe: Float32Array | Int8Array = query;
    if (this.quantized) {
      probe = new Int8Array(this.dimensions);
      quantizeInto(probe, 0, query);
    }
    const matches = usearch.exactSearch(
      dataset,
      probe,
      this.dimensions,
      Math.min(k, n),
      usearch.MetricKind.Cos,
      // One thread: spawning threads per query costs more than it saves when the cores are busy.
      1,
    ) as USearchModule.Matches;
    const hits: SeqHit[] = [];
    for (let i = 0; i < matches.keys.length; i++) {
      const seq = this.seqs[Number(matches.keys[i])];
      if (seq !== undefined) hits.push({ seq, distance: matches.distances[i] as number });
    }
    return hits;
  }

  /** The sketch of every vector held, kept in step from now on by `set` and `remove`. */
  private makeSketch(): Int8Array {
    const sketch = new Int8Array(this.data.length);
    const d = this.dimensions;
    let error = 0;
    for (let slot = 0; slot < this.seqs.length; slot++) {
      error = Math.max(error, quantizeInto(sketch, slot * d, (this.data as Float32Array).subarray(slot * d, (slot + 1) * d)));
    }
    this.sketch = sketch;
    this.sketchError = error;
    return sketch;
  }

  /**
   * The exact `k` nearest through the sketch, or undefined when it cannot prove them (the caller
   * scans the f32 data). The sketch's `width` nearest are candidates; their f32 distances are
   * computed by the same SIMD code as the full scan's (so are the same numbers). Cosine distance
   * moves no more than the angle between vectors does, so a vector outside the candidates lies
   * at least (the widest candidate's sketch distance − the query's and the largest vector's
   * sketch angles) away: when that is beyond the k-th f32 distance, no vector outside comes nearer.
   * Otherwise the sketch is asked again, eight times wider, while that is a fraction of the data.
   */
  private sketchSearch(usearch: USearch, sketch: Int8Array, query: Float32Array, k: number): SeqHit[] | undefined {
    const n = this.seqs.length;
    const d = this.dimensions;
    const probe = new Int8Array(d);
    const bound = quantizeInto(probe, 0, query) + this.sketchError + DISTANCE_SLACK;
    if (!Number.isFinite(bound)) return undefined;
    const data = this.data as Float32Array;
    for (let width = Math.max(SKETCH_WIDTH, 2 * k + 16, Math.ceil(n * SKETCH_SHARE)); width * 4 <= n; width *= 8) {
      const picked = usearch.exactSearch(sketch.subarray(0, n * d), probe, d, width, usearch.MetricKind.Cos, 1) as USearchModule.Matches;
      const count = picked.keys.length;
      const slots = new Uint32Array(count);
      if (this.gathered.length < count * d) this.gathered = new Float32Array(count * d);
      const rows = this.gathered.subarray(0, count * d);
      for (let i = 0; i < count; i++) {
        const slot = Number(picked.keys[i]);
        slots[i] = slot;
        rows.set(data.subarray(slot * d, (slot + 1) * d), i * d);
      }
      const found = usearch.exactSearch(rows, query, d, Math.min(k, count), usearch.MetricKind.Cos, 1) as USearchModule.Matches;
      const kth = found.distances[found.keys.length - 1] as number;
      const outside = (picked.distances[count - 1] as number) - bound;
      if (found.keys.length < k || !(outside > kth)) continue;
      const hits: SeqHit[] = [];
      for (let i = 0; i < found.keys.length; i++) {
        const seq = this.seqs[slots[Number(found.keys[i])] as number];
        if (seq !== undefined) hits.push({ seq, distance: found.distances[i] as number });
      }
      this.sketchAnswers++;
      return hits;
    }
    return undefined;
  }
}

/**
 * The exact matrix for `fingerprint`, kept in `holder`: the one held, or every vector read afresh
 * (the old copy let go first) when there is none, it is stale (another model, or older than the
 * log's floor) or quantised while the vectors now fit in f32; then caught up from the log.
 */
export function currentExact(
  holder: { exact: ExactMatrix | undefined },
  log: IndexLog,
  fingerprint: string,
  dimensions: number,
  count: number,
): ExactMatrix {
  const held = holder.exact;
  const stale = !held || held.fingerprint !== fingerprint || held.highWater < log.floor();
  // Shrunk below the size that calls for one byte a dimension: f32 again (the scan below the threshold reads it).
  if (!held || stale || (held.quantized && count * dimensions <= QUANTIZE_ABOVE_FLOATS)) {
    holder.exact = undefined;
    const fresh = new ExactMatrix(dimensions, fingerprint, count);
    fresh.highWater = log.eachVector((seq, vector) => fresh.set(seq, vector));
    holder.exact = fresh;
  }
  const exact = holder.exact as ExactMatrix;
  log.catchUp(exact, (seq, vector) => (vector ? exact.set(seq, vector) : exact.remove(seq)));
  return exact;
}
