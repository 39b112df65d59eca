// A segment's positions left in its file (a range of `<name>.db.keywords`), read a window at a
// time with readSync: the page cache holds them, not the process, so they cost no resident memory;
// and a compaction's new positions spilled to a temporary file as they are merged (PositionSpill).
import { closeSync, readSync, writeSync } from "node:fs";

const closer = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
});

/** Reads `into.length` bytes of `fd` from `at` (throws when the file ends before). */
export function readExactly(fd: number, into: Uint8Array, at: number): void {
  for (let got = 0; got < into.length; ) {
    const n = readSync(fd, into, got, into.length - got, at + got);
    if (n === 0) throw new Error(`keyword index: its file ended at ${at + got} bytes (changed on disk?)`);
    got += n;
  }
}

export class PositionFile {
  private open = true;

  /** `fd` is owned from now on (closed by close(), or when this is collected). */
  constructor(
    private readonly fd: number,
    private readonly offset: number,
    readonly length: number,
  ) {
    closer.register(this, fd, this);
  }

  /**
   * Reads from `start` at least up to `end` (and `ahead` bytes more, not past `limit`) into `into`,
   * grown when too small; returns the buffer and how many bytes it holds.
   */
  read(into: Uint8Array, start: number, end: number, ahead = 0, limit = this.length): { bytes: Uint8Array; length: number } {
    if (!this.open) throw new Error("keyword index: its file was closed");
    const want = Math.max(end, Math.min(limit, this.length, end + ahead)) - start;
    const bytes = into.length >= want ? into : new Uint8Array(want);
    let got = 0;
    while (got < want) {
      const n = readSync(this.fd, bytes, got, want - got, this.offset + start + got);
      if (n === 0) throw new Error(`keyword index: its file ended at ${this.offset + start + got} bytes (changed on disk?)`);
      got += n;
    }
    if (got > this.largestRead) this.largestRead = got;
    return { bytes, length: got };
  }

  /** The largest number of bytes one read() has read (what reading cost in memory at a time). */
  largestRead = 0;

  /** All the positions, in memory (for compaction and saving). */
  all(): Uint8Array {
    return this.length === 0 ? new Uint8Array(0) : this.read(new Uint8Array(this.length), 0, this.length).bytes;
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    closer.unregister(this);
    closeSync(this.fd);
  }
}

/** Bytes buffered before they are written to a spill file. */
const SPILL_PIECE = 1024 * 1024;

/**
 * Positions written to a file as a compaction merges them (a temporary file, already unlinked, so
 * nothing is left behind), a piece at a time, rather than grown in memory; done() gives them as a PositionFile.
 */
export class PositionSpill {
  length = 0;
  private buffer = new Uint8Array(SPILL_PIECE);
  private used = 0;
  private written = 0;

  /** `fd`: an empty file open for reading and writing, owned from now on. */
  constructor(private readonly fd: number) {}

  varint(value: number): void {
    if (this.used + 5 > this.buffer.length) this.flush();
    let v = value;
    while (v >= 0x80) {
      this.buffer[this.used++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buffer[this.used++] = v;
    this.length = this.written + this.used;
  }

  raw(source: Uint8Array, start: number, end: number): void {
    for (let from = start; from < end; ) {
      if (this.used === this.buffer.length) this.flush();
      const n = Math.min(end - from, this.buffer.length - this.used);
      // A posting's few bytes in a loop: a subarray() and set() each cost more.
      if (n <= 64) for (let i = 0; i < n; i++) this.buffer[this.used + i] = source[from + i] as number;
      else this.buffer.set(source.subarray(from, from + n), this.used);
      this.used += n;
      from += n;
    }
    this.length = this.written + this.used;
  }

  private flush(): void {
    for (let at = 0; at < this.used; ) at += writeSync(this.fd, this.buffer, at, this.used - at, this.written + at);
    this.written += this.used;
    this.used = 0;
  }

  /** The positions written, read from the file from now on. */
  done(): PositionFile {
    this.flush();
    this.buffer = new Uint8Array(0);
    return new PositionFile(this.fd, 0, this.length);
  }
}
