// The exact path above the threshold: every embedded chunk's vector held in memory, kept in step
// with the vector log, scanned exactly with usearch's SIMD `exactSearch`.
import type * as USearchModule from "usearch";
import type { SeqHit } from "./log.js";
import type { USearch } from "./settings.js";

/** Vectors of all embedded chunks held in memory, kept in step with the log, scanned exactly with SIMD. */
export class ExactMatrix {
  data: Float32Array;
  seqs: number[] = [];
  slots = new Map<number, number>();
  highWater = 0;

  constructor(
    readonly dimensions: number,
    readonly fingerprint: string,
    capacity: number,
  ) {
    this.data = new Float32Array(Math.max(1024, capacity) * dimensions);
  }

  set(seq: number, vector: Float32Array): void {
    let slot = this.slots.get(seq);
    if (slot === undefined) {
      slot = this.seqs.length;
      if ((slot + 1) * this.dimensions > this.data.length) {
        const grown = new Float32Array(this.data.length * 2);
        grown.set(this.data);
        this.data = grown;
      }
      this.seqs.push(seq);
      this.slots.set(seq, slot);
    }
    this.data.set(vector, slot * this.dimensions);
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

  /** The vector held for a chunk (a view, valid until the next change). */
  vector(seq: number): Float32Array | undefined {
    const slot = this.slots.get(seq);
    return slot === undefined ? undefined : this.data.subarray(slot * this.dimensions, (slot + 1) * this.dimensions);
  }

  search(usearch: USearch, query: Float32Array, k: number): SeqHit[] {
    const n = this.seqs.length;
    if (n === 0) return [];
    const dataset = this.data.subarray(0, n * this.dimensions);
    const matches = usearch.exactSearch(
      dataset,
      query,
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
