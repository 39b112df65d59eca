// A segment's positions left in its file (a range of `<name>.db.keywords`), read a window at a
// time with readSync: the page cache holds them, not the process, so they cost no resident memory.
import { closeSync, readSync } from "node:fs";

const closer = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
});

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
    return { bytes, length: got };
  }

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
