// The exact path above the threshold: every embedded chunk's vector held in memory (f32, or one
// byte a dimension when large: see QUANTIZE_ABOVE_FLOATS), kept in step with the vector log,
// scanned with usearch's SIMD `exactSearch`.
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

function quantizeInto(target: Int8Array, offset: number, vector: Float32Array): void {
  let max = 0;
  for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(vector[i] as number));
  const scale = max > 0 ? 127 / max : 0;
  for (let i = 0; i < vector.length; i++) target[offset + i] = Math.round((vector[i] as number) * scale);
}

/** Vectors of all embedded chunks held in memory, kept in step with the log, scanned with SIMD. */
export class ExactMatrix {
  data: Float32Array | Int8Array;
  seqs: number[] = [];
  slots = new Map<number, number>();
  highWater = 0;
  /** One byte a dimension: distances from `search` are approximate (rescore the candidates). */
  readonly quantized: boolean;

  constructor(
    readonly dimensions: number,
    readonly fingerprint: string,
    capacity: number,
    options: { quantize?: boolean } = {},
  ) {
    this.quantized = options.quantize ?? capacity * dimensions > QUANTIZE_ABOVE_FLOATS;
    const length = Math.max(1024, capacity) * dimensions;
    this.data = this.quantized ? new Int8Array(length) : new Float32Array(length);
  }

  set(seq: number, vector: Float32Array): void {
    let slot = this.slots.get(seq);
    if (slot === undefined) {
      slot = this.seqs.length;
      if ((slot + 1) * this.dimensions > this.data.length) {
        const grown = this.quantized ? new Int8Array(this.data.length * 2) : new Float32Array(this.data.length * 2);
        grown.set(this.data);
        this.data = grown;
      }
      this.seqs.push(seq);
      this.slots.set(seq, slot);
    }
    if (this.data instanceof Int8Array) quantizeInto(this.data, slot * this.dimensions, vector);
    else this.data.set(vector, slot * this.dimensions);
  }

  remove(seq: number): void {
    const slot = this.slots.get(seq);
    if (slot === undefined) return;
    const last = this.seqs.length - 1;
    const lastSeq = this.seqs[last] as number;
    if (slot !== last) {
      this.data.copyWithin(slot * this.dimensions, last * this.dimensions, (last + 1) * this.dimensions);
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
