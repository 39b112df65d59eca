// Term strings to the keyword index's term ids: an open-addressing table over each term's UTF-16
// code units, looked up while a column string is tokenised, so no string is made for a known term.
import { BMP, foldedCode } from "./tokenize.js";

const EMPTY = 0;
/** The most ids per place before the table doubles (linear probing stays short below ~0.7). */
const MAX_LOAD = 0.6;

/** FNV-1a over 16-bit code units, then a finaliser (linear probing wants the low bits mixed). */
const PRIME = 0x01000193;
const SEED = 0x811c9dc5 | 0;
function finish(h: number): number {
  let x = h ^ (h >>> 16);
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return x ^ (x >>> 16);
}

/**
 * The ids of a segment's terms (`base`, id = index) and of terms added since (ids from base.length
 * on, in `added`). `ids` tokenises a column string exactly as tokenize() does (FTS5's unicode61),
 * writing each token's id and giving new terms the next ids.
 */
export class TermIds {
  /** Per place: id + 1 (EMPTY: free). */
  private table: Int32Array;
  private mask: number;
  /** Per id: its hash. */
  private hashes: Int32Array;
  private count = 0;
  /** The token being read, folded. */
  private units: Uint16Array = new Uint16Array(64);
  /** Terms added after the base, in id order. */
  readonly added: string[] = [];

  constructor(private readonly base: readonly string[]) {
    let capacity = 1024;
    while (capacity * MAX_LOAD < base.length + 1024) capacity *= 2;
    this.table = new Int32Array(capacity);
    this.mask = capacity - 1;
    this.hashes = new Int32Array(base.length + 1024);
    for (let id = 0; id < base.length; id++) this.insert(id, hashOf(base[id] as string));
  }

  /** How many terms have ids. */
  get size(): number {
    return this.count;
  }

  /** The term with this id. */
  term(id: number): string {
    return (id < this.base.length ? this.base[id] : this.added[id - this.base.length]) as string;
  }

  /** The id of a term (a token as tokenize() makes it), or -1. */
  get(term: string): number {
    const h = hashOf(term);
    for (let at = h & this.mask; ; at = (at + 1) & this.mask) {
      const entry = this.table[at] as number;
      if (entry === EMPTY) return -1;
      const id = entry - 1;
      if (this.hashes[id] === h && this.term(id) === term) return id;
    }
  }

  /**
   * Tokenises `text` as tokenize() does and writes each token's term id into `out` from `from`
   * (`out` must have room for text.length + 1 ids past `from`); returns how many tokens it held.
   */
  ids(text: string, out: Int32Array, from: number): number {
    let n = 0;
    let start = -1;
    let plain = true;
    let length = 0;
    let h = SEED;
    let units = this.units;
    const end = text.length;
    for (let i = 0; i < end; ) {
      let cp = text.charCodeAt(i);
      let width = 1;
      let folded: number;
      if (cp < 0xd800 || cp > 0xdfff) {
        // Below 0x10000 (the common case): one table read (see BMP in tokenize.ts).
        const v = BMP[cp] as number;
        folded = v >= -1 ? v : start >= 0 ? -(v + 2) : -1;
      } else {
        cp = text.codePointAt(i) as number;
        if (cp > 0xffff) width = 2;
        folded = foldedCode(cp, start >= 0);
      }
      if (folded < 0) {
        if (start >= 0) out[from + n++] = this.idOf(text, start, i, plain, length, finish(h));
        start = -1;
      } else {
        if (start < 0) {
          start = i;
          plain = true;
          length = 0;
          h = SEED;
        }
        if (folded !== cp) plain = false;
        if (length + 2 > units.length) units = this.growUnits();
        if (folded > 0xffff) {
          const hi = 0xd800 + ((folded - 0x10000) >> 10);
          const lo = 0xdc00 + ((folded - 0x10000) & 0x3ff);
          units[length++] = hi;
          units[length++] = lo;
          h = Math.imul(Math.imul(h ^ hi, PRIME) ^ lo, PRIME);
        } else {
          units[length++] = folded;
          h = Math.imul(h ^ folded, PRIME);
        }
      }
      i += width;
    }
    if (start >= 0) out[from + n++] = this.idOf(text, start, end, plain, length, finish(h));
    return n;
  }

  /** The id of the token in `units` (text[start, end) when `plain`), a new one when the term is new. */
  private idOf(text: string, start: number, end: number, plain: boolean, length: number, h: number): number {
    const units = this.units;
    for (let at = h & this.mask; ; at = (at + 1) & this.mask) {
      const entry = this.table[at] as number;
      if (entry === EMPTY) break;
      const id = entry - 1;
      if (this.hashes[id] !== h) continue;
      const term = this.term(id);
      if (term.length !== length) continue;
      let same = true;
      for (let j = 0; j < length; j++) {
        if (term.charCodeAt(j) !== units[j]) {
          same = false;
          break;
        }
      }
      if (same) return id;
    }
    const term = plain ? text.slice(start, end) : unitsToString(units, length);
    const id = this.base.length + this.added.length;
    this.added.push(term);
    this.insert(id, h);
    return id;
  }

  private insert(id: number, h: number): void {
    if (id >= this.hashes.length) {
      const more = new Int32Array(Math.ceil(1.25 * this.hashes.length));
      more.set(this.hashes);
      this.hashes = more;
    }
    this.hashes[id] = h;
    this.count++;
    if (this.count > MAX_LOAD * this.table.length) this.rehash();
    else this.place(id, h);
  }

  private place(id: number, h: number): void {
    let at = h & this.mask;
    while (this.table[at] !== EMPTY) at = (at + 1) & this.mask;
    this.table[at] = id + 1;
  }

  /** A table twice as large, every id placed again (`count` ids, the newest included). */
  private rehash(): void {
    this.table = new Int32Array(2 * this.table.length);
    this.mask = this.table.length - 1;
    for (let id = 0; id < this.count; id++) this.place(id, this.hashes[id] as number);
  }

  private growUnits(): Uint16Array {
    const more = new Uint16Array(2 * this.units.length);
    more.set(this.units);
    this.units = more;
    return more;
  }
}

function hashOf(term: string): number {
  let h = SEED;
  for (let j = 0; j < term.length; j++) h = Math.imul(h ^ term.charCodeAt(j), PRIME);
  return finish(h);
}

function unitsToString(units: Uint16Array, length: number): string {
  let out = "";
  for (let j = 0; j < length; j += 4096) out += String.fromCharCode(...units.subarray(j, Math.min(length, j + 4096)));
  return out;
}
