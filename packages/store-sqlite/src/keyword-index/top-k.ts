// The best k rows of a keyword search so far, as a bounded heap in typed arrays (search.ts).

/**
 * A bounded heap of the best rows so far, the worst at the root (score, then higher seq is worse).
 * Typed arrays: their shapes never change, so the ranking loop's compiled code is kept.
 */
export class TopK {
  scores: Float64Array;
  seqs: Float64Array;
  slots: Int32Array;
  size = 0;
  constructor(readonly k: number) {
    // Grown as rows come (a filtered find may ask for far more rows than match).
    const room = Math.min(k, 256);
    this.scores = new Float64Array(room);
    this.seqs = new Float64Array(room);
    this.slots = new Int32Array(room);
  }
  private grow(): void {
    const room = Math.min(this.k, 2 * this.scores.length);
    const scores = new Float64Array(room);
    const seqs = new Float64Array(room);
    const slots = new Int32Array(room);
    scores.set(this.scores);
    seqs.set(this.seqs);
    slots.set(this.slots);
    this.scores = scores;
    this.seqs = seqs;
    this.slots = slots;
  }
  get full(): boolean {
    return this.size >= this.k;
  }
  get threshold(): number {
    return this.size >= this.k ? (this.scores[0] as number) : Number.NEGATIVE_INFINITY;
  }
  private worse(i: number, j: number): boolean {
    const a = this.scores[i] as number;
    const b = this.scores[j] as number;
    return a < b || (a === b && (this.seqs[i] as number) > (this.seqs[j] as number));
  }
  private swap(i: number, j: number): void {
    const score = this.scores[i] as number;
    this.scores[i] = this.scores[j] as number;
    this.scores[j] = score;
    const seq = this.seqs[i] as number;
    this.seqs[i] = this.seqs[j] as number;
    this.seqs[j] = seq;
    const slot = this.slots[i] as number;
    this.slots[i] = this.slots[j] as number;
    this.slots[j] = slot;
  }
  offer(score: number, seq: number, slot: number): void {
    if (this.k === 0) return;
    if (this.size >= this.k) {
      const root = this.scores[0] as number;
      if (score < root || (score === root && seq > (this.seqs[0] as number))) return;
      this.scores[0] = score;
      this.seqs[0] = seq;
      this.slots[0] = slot;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < this.size && this.worse(l, m)) m = l;
        if (r < this.size && this.worse(r, m)) m = r;
        if (m === i) break;
        this.swap(i, m);
        i = m;
      }
      return;
    }
    if (this.size === this.scores.length) this.grow();
    const at = this.size++;
    this.scores[at] = score;
    this.seqs[at] = seq;
    this.slots[at] = slot;
    for (let i = at; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!this.worse(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }
  /** Best first. */
  sorted(): { seq: number; score: number; slot: number }[] {
    const out: { seq: number; score: number; slot: number }[] = [];
    for (let i = 0; i < this.size; i++)
      out.push({ score: this.scores[i] as number, seq: this.seqs[i] as number, slot: this.slots[i] as number });
    return out.sort((a, b) => b.score - a.score || a.seq - b.seq);
  }
}
