// The postings of rows added since the last compaction, in one growable byte arena: per term a chain
// of slices holding, per posting, its slot + 1, title and body counts, then its positions as the
// segment keeps them (varint gaps from 0, title hits then body hits), in slot order.
import { IntMap } from "./int-map.js";
import { grown, skipVarints } from "./segment.js";

/** Bytes of a term's first slice (its next slices double, up to MAX_SLICE). */
const FIRST_SLICE = 16;
const MAX_SLICE = 1 << 15;
/** Tokens a row may hold (a token's index is kept below a term id in one number). */
const TOKEN_BITS = 2 ** 24;
/** The arena's largest size (its offsets are 32-bit signed integers). */
const MAX_ARENA = 2 ** 31 - 1;
/** A slice starts with the offset of the term's next slice (4 bytes, 0: none yet). */
const LINK = 4;

/** A term's added postings read out (below some slot): slots, per-column counts, where positions start. */
export class AddedList {
  length = 0;
  slots: Int32Array;
  titles: Int32Array;
  bodies: Int32Array;
  /** Offset of each posting's positions in the arena (its title hits, then its body hits). */
  at: Int32Array;
  constructor(capacity: number) {
    this.slots = new Int32Array(capacity);
    this.titles = new Int32Array(capacity);
    this.bodies = new Int32Array(capacity);
    this.at = new Int32Array(capacity);
  }
  push(slot: number, titles: number, bodies: number, at: number): void {
    if (this.length === this.slots.length) {
      const n = Math.max(16, 2 * this.length);
      this.slots = grown(this.slots, n);
      this.titles = grown(this.titles, n);
      this.bodies = grown(this.bodies, n);
      this.at = grown(this.at, n);
    }
    const i = this.length++;
    this.slots[i] = slot;
    this.titles[i] = titles;
    this.bodies[i] = bodies;
    this.at[i] = at;
  }
}

/**
 * What a reader of the postings holds: left valid by later adds (they write past what it reads, or
 * to a new arena once this one is full), so a compaction can read it in steps while rows come in.
 */
export interface AddedView {
  bytes: Uint8Array;
  head: Int32Array;
  /** Term id to its place in `head` (terms from `terms` on came later). */
  local: IntMap;
  terms: number;
  /** Postings and arena bytes held then (bounds for a compaction's writers). */
  postings: number;
  used: number;
}

/** Reads a term's postings in `view` with slots below `limit` into `out` (emptied first); returns `out`. */
export function readAdded(view: AddedView, term: number, limit: number, out: AddedList): AddedList {
  out.length = 0;
  const k = view.local.get(term);
  if (k < 0 || k >= view.terms) return out;
  const bytes = view.bytes;
  let slice = view.head[k] as number;
  let p = slice + LINK;
  for (;;) {
    if (p >= bytes.length || bytes[p] === 0) {
      // Past the slice's last posting (a zero byte always follows it): on to the next slice.
      slice =
        (bytes[slice] as number) |
        ((bytes[slice + 1] as number) << 8) |
        ((bytes[slice + 2] as number) << 16) |
        ((bytes[slice + 3] as number) << 24);
      if (slice === 0 || slice >= bytes.length) return out;
      p = slice + LINK;
      continue;
    }
    let b = bytes[p++] as number;
    let slot = b & 0x7f;
    for (let shift = 7; b >= 0x80; shift += 7) {
      b = bytes[p++] as number;
      slot |= (b & 0x7f) << shift;
    }
    slot -= 1;
    if (slot >= limit) return out;
    b = bytes[p++] as number;
    let t = b & 0x7f;
    for (let shift = 7; b >= 0x80; shift += 7) {
      b = bytes[p++] as number;
      t |= (b & 0x7f) << shift;
    }
    b = bytes[p++] as number;
    let c = b & 0x7f;
    for (let shift = 7; b >= 0x80; shift += 7) {
      b = bytes[p++] as number;
      c |= (b & 0x7f) << shift;
    }
    out.push(slot, t, c, p);
    p = skipVarints(bytes, p, t + c);
  }
}

/** The added rows' postings of every term (see the file's comment). */
export class AddedPostings {
  private bytes = new Uint8Array(1 << 16);
  /** Bytes in use (offset 0 is never a slice, so a link of 0 means none). */
  private used = LINK;
  private local = new IntMap();
  private terms = 0;
  /** Per local term: its first slice, its last slice, where its next posting goes, and the last slice's end. */
  private head: Int32Array = new Int32Array(256);
  private last: Int32Array = new Int32Array(256);
  private next: Int32Array = new Int32Array(256);
  private end: Int32Array = new Int32Array(256);
  /** Per local term: its postings. */
  private count: Int32Array = new Int32Array(256);
  /** One posting's bytes, encoded before they are copied to their slice. */
  private scratch = new Uint8Array(256);
  private scratchLength = 0;

  /** Postings held. */
  postings = 0;

  /**
   * Adds the row at `slot` (greater than any added before): `ids` holds the term of each of its
   * tokens, the first `titles` its title's, then its body's. Returns how many postings it made.
   */
  addRow(slot: number, ids: Int32Array, titles: number, tokens: number): number {
    if (tokens > TOKEN_BITS) throw new RangeError(`keyword index: a row of ${tokens} tokens (at most ${TOKEN_BITS})`);
    const row = this.row.group(ids, tokens);
    const { terms, first, count, positions } = row;
    for (let k = 0; k < row.distinct; k++) {
      // Token indexes grouped by term, ascending within a term: title tokens come first.
      const from = first[k] as number;
      const n = count[k] as number;
      let inTitle = 0;
      while (inTitle < n && (positions[from + inTitle] as number) < titles) inTitle++;
      for (let i = inTitle; i < n; i++) positions[from + i] = (positions[from + i] as number) - titles;
      this.add(terms[k] as number, slot, positions, from, inTitle, n - inTitle);
    }
    return row.distinct;
  }
  private row = new RowGroups();

  /** How many of a term's postings are in live rows (`dead`: 1 per removed slot; null when none is). */
  live(term: number, dead: Uint8Array | null): number {
    const count = this.countOf(term);
    if (count === 0 || dead === null) return count;
    const list = readAdded(this.view(), term, 0x7fffffff, this.scratchList);
    let n = 0;
    for (let i = 0; i < list.length; i++) if (dead[list.slots[i] as number] === 0) n++;
    return n;
  }
  private scratchList = new AddedList(16);

  /** How many postings a term has here (removed rows included). */
  countOf(term: number): number {
    const k = this.local.get(term);
    return k < 0 ? 0 : (this.count[k] as number);
  }

  /** Bytes held for the postings (arena, per-term tables and the term map). */
  get heldBytes(): number {
    return this.bytes.length + 5 * 4 * this.head.length + this.scratch.length + this.local.bytes;
  }

  /** The arena (a new one once it fills: read it through a cursor's or view's own reference). */
  get arena(): Uint8Array {
    return this.bytes;
  }

  view(): AddedView {
    return { bytes: this.bytes, head: this.head, local: this.local, terms: this.terms, postings: this.postings, used: this.used };
  }

  /** A term's postings with slots below `limit`, in fresh arrays. */
  list(term: number, limit: number): AddedList {
    return readAdded(this.view(), term, limit, new AddedList(this.countOf(term)));
  }

  /**
   * Adds a posting of `term` at `slot` (greater than any it has): its title positions, then its
   * body positions, ascending, in `positions` from `from` (`titles` then `bodies` of them).
   */
  add(term: number, slot: number, positions: Int32Array, from: number, titles: number, bodies: number): void {
    this.scratchLength = 0;
    this.varint(slot + 1);
    this.varint(titles);
    this.varint(bodies);
    let prev = 0;
    for (let i = 0; i < titles + bodies; i++) {
      if (i === titles) prev = 0;
      const v = positions[from + i] as number;
      this.varint(v - prev);
      prev = v;
    }
    const length = this.scratchLength;
    let k = this.local.get(term);
    if (k < 0) {
      k = this.terms++;
      this.local.add(term, k);
      if (k === this.head.length) this.growTerms();
      const at = this.slice(Math.max(FIRST_SLICE, length + 1 + LINK));
      this.head[k] = at;
      this.last[k] = at;
      this.next[k] = at + LINK;
      this.end[k] = at + Math.max(FIRST_SLICE, length + 1 + LINK);
    } else if ((this.next[k] as number) + length + 1 > (this.end[k] as number)) {
      // A zero byte must follow a slice's last posting: a slice too short for this one is left for a new one.
      const size = Math.max(Math.min(MAX_SLICE, 2 * ((this.end[k] as number) - (this.last[k] as number))), length + 1 + LINK);
      const at = this.slice(size);
      const old = this.last[k] as number;
      this.bytes[old] = at & 0xff;
      this.bytes[old + 1] = (at >>> 8) & 0xff;
      this.bytes[old + 2] = (at >>> 16) & 0xff;
      this.bytes[old + 3] = at >>> 24;
      this.last[k] = at;
      this.next[k] = at + LINK;
      this.end[k] = at + size;
    }
    const at = this.next[k] as number;
    // A few bytes: copied in a loop (a subarray() and set() per posting cost more).
    const bytes = this.bytes;
    const scratch = this.scratch;
    for (let i = 0; i < length; i++) bytes[at + i] = scratch[i] as number;
    this.next[k] = at + length;
    this.count[k] = (this.count[k] as number) + 1;
    this.postings++;
  }

  /** Room for a new slice of `size` bytes (zeros); returns its offset. */
  private slice(size: number): number {
    if (this.used + size > MAX_ARENA) throw new RangeError("keyword index: the added rows' postings fill 2 GiB (compact it)");
    if (this.used + size > this.bytes.length) {
      // A new arena, half as large again (a doubling would leave up to half of it unused): readers
      // holding the old one (a compaction's view, a cursor) keep reading it unchanged.
      const next = new Uint8Array(Math.min(MAX_ARENA, Math.max(Math.ceil(1.5 * this.bytes.length), this.used + size)));
      next.set(this.bytes.subarray(0, this.used));
      this.bytes = next;
    }
    const at = this.used;
    this.used += size;
    return at;
  }

  private growTerms(): void {
    const n = 2 * this.head.length;
    this.head = grown(this.head, n);
    this.last = grown(this.last, n);
    this.next = grown(this.next, n);
    this.end = grown(this.end, n);
    this.count = grown(this.count, n);
  }

  private varint(value: number): void {
    if (this.scratchLength + 5 > this.scratch.length) {
      const more = new Uint8Array(2 * this.scratch.length);
      more.set(this.scratch);
      this.scratch = more;
    }
    let v = value;
    while (v >= 0x80) {
      this.scratch[this.scratchLength++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.scratch[this.scratchLength++] = v;
  }
}

/**
 * A row's tokens grouped by term (in order of first appearance), each term's token indexes
 * ascending: a counting sort through a small table of the row's terms (no sort of all tokens).
 */
class RowGroups {
  distinct = 0;
  terms = new Int32Array(256);
  first = new Int32Array(256);
  count = new Int32Array(256);
  positions = new Int32Array(256);
  private tokenGroup = new Int32Array(256);
  private keys = new Int32Array(512);
  private groups = new Int32Array(512);
  private stamps = new Int32Array(512);
  private stamp = 0;

  group(ids: Int32Array, tokens: number): this {
    if (tokens > this.positions.length) {
      const n = 2 * tokens;
      this.terms = new Int32Array(n);
      this.first = new Int32Array(n);
      this.count = new Int32Array(n);
      this.positions = new Int32Array(n);
      this.tokenGroup = new Int32Array(n);
      // The table's size a power of two (its mask), at least twice the tokens.
      let size = 512;
      while (size < 2 * n) size *= 2;
      this.keys = new Int32Array(size);
      this.groups = new Int32Array(size);
      this.stamps = new Int32Array(size);
      this.stamp = 0;
    }
    if (this.stamp === 0x7fffffff) {
      this.stamps.fill(0);
      this.stamp = 0;
    }
    const { terms, count, tokenGroup, keys, groups, stamps } = this;
    const mask = keys.length - 1;
    const stamp = ++this.stamp;
    let distinct = 0;
    for (let i = 0; i < tokens; i++) {
      const id = ids[i] as number;
      let at = Math.imul(id, 0x9e3779b1) & mask;
      for (;;) {
        if (stamps[at] !== stamp) {
          stamps[at] = stamp;
          keys[at] = id;
          groups[at] = distinct;
          terms[distinct] = id;
          count[distinct++] = 0;
          break;
        }
        if (keys[at] === id) break;
        at = (at + 1) & mask;
      }
      const g = groups[at] as number;
      tokenGroup[i] = g;
      count[g] = (count[g] as number) + 1;
    }
    const { first, positions } = this;
    let sum = 0;
    for (let g = 0; g < distinct; g++) {
      first[g] = sum;
      sum += count[g] as number;
      count[g] = 0;
    }
    for (let i = 0; i < tokens; i++) {
      const g = tokenGroup[i] as number;
      positions[(first[g] as number) + (count[g] as number)] = i;
      count[g] = (count[g] as number) + 1;
    }
    this.distinct = distinct;
    return this;
  }
}
