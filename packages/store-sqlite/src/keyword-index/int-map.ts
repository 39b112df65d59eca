// Whole numbers (0 to 2^31 - 2) to whole numbers in typed arrays: open addressing, linear probing.
// A Map of numbers cost the keyword index's add a third of its time.

export class IntMap {
  /** Per place: key + 1 (0: free). */
  private keys: Int32Array;
  private values: Int32Array;
  private mask: number;
  size = 0;

  constructor(capacity = 256) {
    let n = 16;
    while (n < 2 * capacity) n *= 2;
    this.keys = new Int32Array(n);
    this.values = new Int32Array(n);
    this.mask = n - 1;
  }

  /** The value of `key`, or -1. */
  get(key: number): number {
    for (let at = hash(key) & this.mask; ; at = (at + 1) & this.mask) {
      const k = this.keys[at] as number;
      if (k === 0) return -1;
      if (k === key + 1) return this.values[at] as number;
    }
  }

  /** Sets a key not yet held. */
  add(key: number, value: number): void {
    if (2 * (this.size + 1) > this.keys.length) this.grow();
    this.place(key + 1, value);
    this.size++;
  }

  /** Bytes held. */
  get bytes(): number {
    return 8 * this.keys.length;
  }

  private place(stored: number, value: number): void {
    let at = hash(stored - 1) & this.mask;
    while (this.keys[at] !== 0) at = (at + 1) & this.mask;
    this.keys[at] = stored;
    this.values[at] = value;
  }

  private grow(): void {
    const { keys, values } = this;
    this.keys = new Int32Array(2 * keys.length);
    this.values = new Int32Array(2 * keys.length);
    this.mask = this.keys.length - 1;
    for (let i = 0; i < keys.length; i++) if (keys[i] !== 0) this.place(keys[i] as number, values[i] as number);
  }
}

function hash(key: number): number {
  const x = Math.imul(key, 0x9e3779b1);
  return x ^ (x >>> 15);
}
