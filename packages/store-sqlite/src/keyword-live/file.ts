// The keyword index on disk: `<name>.db.keywords` — a header (format, analyser version, keyword-log
// high-water mark, rows, SHA-256 of the body) then the index's own bytes; read only when intact,
// written atomically (temporary file, fsync, rename under the write lock, then the log is pruned).

import { closeSync, fstatSync, fsyncSync, openSync, readdirSync, readSync, renameSync, rmSync } from "node:fs";
import { open, readFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ANALYZER_VERSION } from "@docdb/analyzer";
import { StoreError } from "@docdb/store";
import type { Connection } from "../connection.js";
import {
  alive,
  type DamageNote,
  type FileIdentity,
  identity,
  notAFile,
  sameIdentity,
  setAside,
  sha256,
  sha256Hasher,
  statOrUndefined,
} from "../hnsw/verify.js";
import { KeywordIndex, positionsLength, type Segment, segmentParts } from "../keyword-index/index.js";
import { type BodyRead, openForRead, POSITIONS_IN_FILE, readBody } from "./file-read.js";
import type { KeywordLog } from "./log.js";

/** The first bytes of every keyword index file. */
const MAGIC = Buffer.from("docdb keywords\n\0", "latin1");
/** Format of the header and of the body's framing; a file of another format is built again. */
const FORMAT = 1;
/** Bytes written (and hashed) at a time when saving: the event loop runs between pieces. */
const WRITE_PIECE = 4 * 1024 * 1024;
/** A header longer than this is not one docdb wrote. */
const MAX_HEADER = 64 * 1024;

export interface KeywordFileHeader {
  format: number;
  /** The analyser version whose terms the index holds (the keyword rows are refilled when it changes). */
  analyzerVersion: number;
  /** Last keyword_log id applied. */
  highWater: number;
  rows: number;
  /** Bytes of the body (after the header). */
  bytes: number;
  /** `sha256:<hex>` of the body. */
  checksum: string;
  savedAt: string;
}

/**
 * What opening the file found: the index; damage (not what its header says, unreadable, or not a
 * file at all: set aside); stale (another format or analyser version, or a log position the
 * database does not have: built again); or nothing (missing).
 */
export type KeywordLoad =
  | { index: KeywordIndex; header: KeywordFileHeader }
  | { damage: string; seen: FileIdentity | undefined }
  | { stale: string }
  | undefined;

function describeError(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return e?.code ? `${e.code}: ${e.message}` : String(e?.message ?? error);
}

/** Splits a file's bytes into its header and body; a string saying what is wrong when they are not docdb's. */
function parse(bytes: Buffer): { header: KeywordFileHeader; body: Buffer } | string {
  if (bytes.length < MAGIC.length + 4 || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) {
    return "does not start with docdb's keyword index header";
  }
  const length = bytes.readUInt32LE(MAGIC.length);
  const start = MAGIC.length + 4;
  if (length > MAX_HEADER || start + length > bytes.length) return "has a header length past its end";
  let header: KeywordFileHeader;
  try {
    header = JSON.parse(bytes.subarray(start, start + length).toString("utf8")) as KeywordFileHeader;
  } catch {
    return "has a header that is not valid JSON";
  }
  if (typeof header !== "object" || header === null || typeof header.highWater !== "number") return "has an incomplete header";
  return { header, body: bytes.subarray(start + length) };
}

/** The body of a file read whole (positions in memory): where positions cannot stay in the file. */
function readWhole(bytes: Buffer, start: number, header: KeywordFileHeader): BodyRead {
  const body = bytes.subarray(start);
  if (body.length !== header.bytes) return { wrong: `has a body of ${body.length} bytes, its header says ${header.bytes}` };
  if (sha256(body) !== header.checksum) return { wrong: "does not match the checksum in its header (damaged)" };
  try {
    // The index views typed arrays over the bytes: they must start 8-byte aligned (copied if not).
    return { index: KeywordIndex.fromBuffer(body.byteOffset % 8 === 0 ? body : Uint8Array.from(body)) };
  } catch (error) {
    return { error };
  }
}

/** The keyword index file of one database. */
export class KeywordFile {
  readonly file: string;

  constructor(
    private readonly conn: Connection,
    private readonly log: KeywordLog,
    /** Positions of at least this many bytes stay in the file (see POSITIONS_IN_FILE_FROM). */
    private readonly positionsInFileFrom: number,
  ) {
    this.file = `${conn.location}.keywords`;
  }

  /** The header alone (reads its first bytes); undefined when absent or not docdb's. */
  readHeader(): KeywordFileHeader | undefined {
    let fd: number | undefined;
    try {
      fd = openSync(this.file, "r");
      const head = Buffer.alloc(MAGIC.length + 4);
      if (readSync(fd, head, 0, head.length, 0) < head.length || !head.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
      const length = head.readUInt32LE(MAGIC.length);
      if (length > MAX_HEADER) return undefined;
      const json = Buffer.alloc(length);
      if (readSync(fd, json, 0, length, head.length) < length) return undefined;
      const header = JSON.parse(json.toString("utf8")) as KeywordFileHeader;
      return header.format === FORMAT ? header : undefined;
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  /** Why a header cannot serve this database now (another format or analyser, a log position it lacks); undefined when it can. */
  staleness(header: KeywordFileHeader): string | undefined {
    if (header.format !== FORMAT) return `format ${header.format}, this docdb writes ${FORMAT}`;
    if (header.analyzerVersion !== ANALYZER_VERSION)
      return `analyser version ${header.analyzerVersion}, this docdb's is ${ANALYZER_VERSION}`;
    const floor = this.log.floor();
    if (header.highWater < floor) return `older than the oldest keyword log entry kept (${header.highWater} < ${floor})`;
    const high = this.log.high();
    if (header.highWater > high) return `newer than the database's keyword log (${header.highWater} > ${high})`;
    return undefined;
  }

  /** Removes temporary files a killed process left while writing (`<file>.tmp-<pid>-…` of a process that is gone). */
  removeLeftovers(): void {
    const prefix = `${basename(this.file)}.tmp-`;
    let names: string[];
    try {
      names = readdirSync(dirname(this.file)).filter((n) => n.startsWith(prefix));
    } catch {
      return;
    }
    for (const name of names) {
      const pid = Number(name.slice(prefix.length).split("-")[0]);
      if (Number.isInteger(pid) && pid > 0 && !alive(pid)) rmSync(join(dirname(this.file), name), { force: true });
    }
  }

  /** The stored index when it is intact and can catch up with this database. */
  async load(): Promise<KeywordLoad> {
    this.removeLeftovers();
    let stats: ReturnType<typeof statOrUndefined>;
    try {
      stats = statOrUndefined(this.file);
    } catch (error) {
      return { damage: `cannot be read (${describeError(error)})`, seen: undefined };
    }
    const kind = notAFile(stats);
    if (kind) return { damage: `is ${kind}, not a keyword index file`, seen: stats && identity(stats) };
    if (!stats) return undefined;
    const seen = identity(stats);
    let fd: number | undefined;
    let read: { header: KeywordFileHeader; body: Buffer; start: number } | string;
    try {
      // The header from the file's first bytes; the body (but its positions, left in the file) after.
      fd = openForRead(this.file);
      const head = Buffer.alloc(Math.min(fstatSync(fd).size, MAGIC.length + 4 + MAX_HEADER));
      readSync(fd, head, 0, head.length, 0);
      const parsed = parse(head);
      read = typeof parsed === "string" ? parsed : { ...parsed, start: head.length - parsed.body.length };
    } catch (error) {
      if (fd !== undefined) closeSync(fd);
      return { damage: `cannot be read (${describeError(error)})`, seen };
    }
    if (typeof read === "string") {
      closeSync(fd);
      return { damage: read, seen };
    }
    const stale = this.staleness(read.header);
    if (stale) {
      closeSync(fd);
      return { stale };
    }
    const { header, start } = read;
    let body: BodyRead;
    try {
      if (POSITIONS_IN_FILE) body = await readBody(fd, start, header.bytes, header.checksum, this.positionsInFileFrom);
      else {
        closeSync(fd);
        body = readWhole(await readFile(this.file), start, header);
      }
    } catch (error) {
      return { damage: `cannot be read (${describeError(error)})`, seen };
    }
    if ("wrong" in body) return { damage: body.wrong, seen };
    if ("error" in body) return { damage: `cannot be read as a keyword index (${describeError(body.error)})`, seen };
    const { index } = body;
    if (index.rows !== header.rows) {
      index.close();
      return { damage: `holds ${index.rows} rows, its header says ${header.rows}`, seen };
    }
    return { index, header };
  }

  /**
   * Moves a damaged file aside (`<file>.corrupt-<time>`, never deleted) under the write lock, and
   * only when it is still the file found damaged. The note, or undefined when it was gone.
   */
  setAside(reason: string, seen: FileIdentity | undefined): Promise<DamageNote | undefined> {
    return this.conn.write(() => {
      const stats = statOrUndefined(this.file);
      if (!stats || (seen && !sameIdentity(identity(stats), seen))) return undefined;
      return setAside(this.file, reason, this.readHeader() ?? null);
    });
  }

  /** Removes the file. */
  remove(): void {
    rmSync(this.file, { force: true });
  }

  /**
   * Writes a compacted segment (positions in memory or in a spill file) with its log position: beside the final file,
   * a piece at a time (hashed as written, the event loop running between pieces), flushed to disk,
   * then renamed over it under the write lock (unless another process wrote a newer one) and the
   * log pruned up to it; `installed` runs there too, with the new file open (its body at
   * `bodyAt`). `wait: false` gives up when another process holds the write lock (written later).
   * True when this segment is now the file.
   */
  async save(
    seg: Segment,
    highWater: number,
    options: { wait: boolean },
    installed?: (file: { fd: number | undefined; bodyAt: number; checksum: string }) => void,
  ): Promise<boolean> {
    const parts = segmentParts(seg);
    const bytes = parts.reduce((n, p) => n + p.length, 0);
    const header: KeywordFileHeader = {
      format: FORMAT,
      analyzerVersion: ANALYZER_VERSION,
      highWater,
      rows: seg.seqs.length,
      bytes,
      // Its length is that of the real one, written over it at the end.
      checksum: `sha256:${"0".repeat(64)}`,
      savedAt: new Date().toISOString(),
    };
    const headerBytes = (): Buffer => {
      // Padded so that the body starts at a multiple of 8 bytes: the index views its arrays in place.
      const text = JSON.stringify(header);
      const json = Buffer.from(text.padEnd(text.length + ((8 - ((MAGIC.length + 4 + text.length) % 8)) % 8)), "utf8");
      const length = Buffer.alloc(4);
      length.writeUInt32LE(json.length);
      return Buffer.concat([MAGIC, length, json]);
    };
    const bodyAt = headerBytes().length;
    const tmp = `${this.file}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    let done = false;
    try {
      const handle = await open(tmp, "w");
      try {
        const hash = sha256Hasher();
        let at = bodyAt;
        let window: Uint8Array = new Uint8Array(0);
        for (const part of parts) {
          for (let from = 0; from < part.length; from += WRITE_PIECE) {
            const to = Math.min(part.length, from + WRITE_PIECE);
            // Positions left in a file (a compaction's spill) are copied a piece at a time.
            if (!(part instanceof Uint8Array)) window = part.read(window, from, to).bytes;
            const piece = part instanceof Uint8Array ? part.subarray(from, to) : window.subarray(0, to - from);
            hash.update(piece);
            await handle.write(piece, 0, piece.length, at);
            at += piece.length;
          }
        }
        header.checksum = `sha256:${hash.digest("hex")}`;
        const head = headerBytes();
        if (head.length !== bodyAt) throw new Error("the keyword index header changed length while written");
        await handle.write(head, 0, head.length, 0);
        await handle.sync();
      } finally {
        await handle.close();
      }
      const install = () => {
        const current = this.readHeader();
        // Another process wrote a newer index meanwhile, or the log moved past this one: keep theirs.
        if (current && current.analyzerVersion === ANALYZER_VERSION && current.highWater > highWater) return;
        if (highWater < this.log.floor() || highWater > this.log.high()) return;
        this.clearWay();
        renameSync(tmp, this.file);
        syncFolder(dirname(this.file));
        this.log.prune(highWater);
        done = true;
        // The positions just written are read from the file from now on, not kept in memory.
        let fd: number | undefined;
        if (POSITIONS_IN_FILE && positionsLength(seg) >= this.positionsInFileFrom) {
          try {
            fd = openSync(this.file, "r");
          } catch {
            // They stay in memory.
          }
        }
        installed?.({ fd, bodyAt, checksum: header.checksum });
      };
      if (options.wait) await this.conn.write(install);
      else this.conn.tryWrite(install);
    } finally {
      if (!done) rmSync(tmp, { force: true });
    }
    return done;
  }

  /** A directory (or anything but a file) where the file goes is set aside; throws when it cannot be. */
  private clearWay(): void {
    const kind = notAFile(statOrUndefined(this.file));
    if (!kind) return;
    try {
      setAside(this.file, `is ${kind}, not a keyword index file`, null);
    } catch (error) {
      throw new StoreError(
        "UNAVAILABLE",
        `the keyword index cannot be written: ${this.file} is ${kind} and could not be moved aside (${describeError(error)})`,
      );
    }
  }
}

/** Makes a rename in `folder` durable (where the platform allows opening a folder). */
function syncFolder(folder: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(folder, "r");
    fsyncSync(fd);
  } catch {
    // Not supported here (Windows): the rename stands, durability is the file system's.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
