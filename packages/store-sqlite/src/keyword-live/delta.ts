// `<name>.db.keywords.delta`: the keyword rows changed since the index file (its base) was written,
// appended a record at a time (each with its log range and SHA-256), so a save costs the changes,
// not the whole index. A record that does not check out ends the file: the log replays the rest.
import { closeSync, ftruncateSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { ANALYZER_VERSION } from "@docdb/analyzer";
import { sha256, statOrUndefined } from "../hnsw/verify.js";
import type { IndexedRow } from "../keyword-index/index.js";

/** The first bytes of every delta file. */
const MAGIC = Buffer.from("docdb kw delta\n\0", "latin1");
/** Format of the delta file; a file of another format is not read (the log replays its changes). */
export const DELTA_FORMAT = 1;
/** Bytes before a record's payload: its length, 4 bytes unused, the payload's SHA-256. */
const RECORD_HEAD = 40;

/** Rows changed (a row, or null when the chunk is gone), by chunk seq. */
export type ChangedRows = Map<number, IndexedRow | null>;

/** The index file a delta extends: its checksum and log position. */
export interface DeltaBase {
  checksum: string;
  highWater: number;
}

interface DeltaHeader {
  format: number;
  analyzerVersion: number;
  /** The checksum of the index file this delta extends. */
  base: string;
  baseHighWater: number;
}

interface Known {
  ino: number;
  size: number;
  base: string;
  /** The log position the file's last record reaches. */
  mark: number;
  savedAt: string;
}

function encodeRecord(from: number, to: number, rows: ChangedRows): Buffer {
  const list = [...rows].map(([seq, row]) => (row ? [seq, row.title, row.body] : [seq]));
  const payload = Buffer.from(JSON.stringify({ from, to, rows: list }), "utf8");
  const head = Buffer.alloc(RECORD_HEAD);
  head.writeUInt32LE(payload.length, 0);
  Buffer.from(sha256(payload).slice("sha256:".length), "hex").copy(head, 8);
  return Buffer.concat([head, payload]);
}

/** A record's range from the start of its payload (`{"from":N,"to":M,"rows":…`), its rows left unread. */
function rangeOf(payload: Buffer): { from: number; to: number } | undefined {
  const head = /^\{"from":(\d+),"to":(\d+),"rows":\[/.exec(payload.subarray(0, 64).toString("latin1"));
  return head ? { from: Number(head[1]), to: Number(head[2]) } : undefined;
}

/** A record's rows (a row, or null when the chunk is gone); undefined when its payload does not parse. */
export function rowsOf(payload: Buffer): [number, IndexedRow | null][] | undefined {
  try {
    const record = JSON.parse(payload.toString("utf8")) as { rows?: [number, string?, string?][] };
    if (!Array.isArray(record.rows)) return undefined;
    return record.rows.map(([seq, title, body]) => [seq, title === undefined ? null : { seq, title, body: body ?? "" }]);
  } catch {
    return undefined;
  }
}

function encodeHeader(base: DeltaBase): Buffer {
  const header: DeltaHeader = {
    format: DELTA_FORMAT,
    analyzerVersion: ANALYZER_VERSION,
    base: base.checksum,
    baseHighWater: base.highWater,
  };
  const json = Buffer.from(JSON.stringify(header), "utf8");
  const length = Buffer.alloc(4);
  length.writeUInt32LE(json.length);
  return Buffer.concat([MAGIC, length, json]);
}

/** The header of a delta file's bytes and where its records start; undefined when not one. */
function parseHeader(bytes: Buffer): { header: DeltaHeader; start: number } | undefined {
  if (bytes.length < MAGIC.length + 4 || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const length = bytes.readUInt32LE(MAGIC.length);
  const start = MAGIC.length + 4 + length;
  if (start > bytes.length) return undefined;
  try {
    const header = JSON.parse(bytes.subarray(MAGIC.length + 4, start).toString("utf8")) as DeltaHeader;
    return typeof header?.base === "string" ? { header, start } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What reading a delta found: its records in log order (their rows parsed when asked for, so they
 * are not all held at once: rowsOf), the position they reach, and whether a damaged record ended it.
 */
export interface DeltaRead {
  records: { to: number; payload: Buffer }[];
  mark: number;
  bytes: number;
  damaged: boolean;
}

/** The delta file of one database's keyword index, as this process last saw it. */
export class DeltaFile {
  readonly file: string;
  private known: Known | undefined;

  constructor(indexFile: string) {
    this.file = `${indexFile}.delta`;
  }

  /**
   * The changes the file holds after `base` (undefined when it extends another base or version):
   * records in order while each checks out, follows the last, and stays within the log (`high`).
   */
  async read(base: DeltaBase, high: number): Promise<DeltaRead | undefined> {
    this.known = undefined;
    const stats = statOrUndefined(this.file);
    if (!stats?.isFile()) return undefined;
    return this.walk(await readFile(this.file), stats, base, high);
  }

  /** The records of a delta file's bytes after `base` (their rows left unparsed); sets what is known of the file. */
  private walk(bytes: Buffer, stats: { ino: number; mtime: Date }, base: DeltaBase, high: number): DeltaRead | undefined {
    const parsed = parseHeader(bytes);
    const header = parsed?.header;
    if (!parsed || header?.format !== DELTA_FORMAT || header.analyzerVersion !== ANALYZER_VERSION) return undefined;
    if (header.base !== base.checksum || header.baseHighWater !== base.highWater) return undefined;
    const records: DeltaRead["records"] = [];
    let at = parsed.start;
    let mark = base.highWater;
    let damaged = false;
    while (at + RECORD_HEAD <= bytes.length) {
      const length = bytes.readUInt32LE(at);
      const end = at + RECORD_HEAD + length;
      if (end > bytes.length) break; // written in part when the process stopped: the log has it
      const payload = bytes.subarray(at + RECORD_HEAD, end);
      const checked = sha256(payload).slice("sha256:".length) === bytes.subarray(at + 8, at + RECORD_HEAD).toString("hex");
      // Only the range at the payload's start is read here (as encodeRecord writes it).
      const record = checked ? rangeOf(payload) : undefined;
      if (!record) {
        damaged = true;
        break;
      }
      if (record.from !== mark || record.to < record.from || record.to > high) break;
      records.push({ to: record.to, payload });
      mark = record.to;
      at = end;
    }
    this.known = { ino: stats.ino, size: at, base: base.checksum, mark, savedAt: stats.mtime.toISOString() };
    return { records, mark, bytes: at, damaged };
  }

  /**
   * Records the changes from log position `from` up to `to` (in a write transaction, so no other
   * process writes the file meanwhile). Appended when the file is as this process left it. Another
   * process may have appended since: the file's records are walked again, and the changes are
   * appended from where they end, or not at all when they reach `to` (rows given at their state at
   * `to` may be given again: applying them in order gives the same index). False when the file
   * lacks changes before `from` that this process no longer holds (no file, another base, a
   * damaged record): a compacted file must then be written instead.
   */
  append(base: DeltaBase, from: number, to: number, changes: ChangedRows): boolean {
    const stats = statOrUndefined(this.file);
    const known = this.known;
    const savedAt = new Date().toISOString();
    let end = known?.size ?? 0;
    let recordFrom = from;
    if (!known || !stats || known.base !== base.checksum || known.ino !== stats.ino || known.size !== stats.size || known.mark !== from) {
      const read = stats?.isFile() ? this.walk(readFileSync(this.file), stats, base, Number.MAX_SAFE_INTEGER) : undefined;
      if (!read) {
        // No file of this base: a new one, when the changes held reach back to the base.
        if (from !== base.highWater) return false;
        this.create(base, from, to, changes, savedAt);
        return true;
      }
      if (read.mark < from) return false;
      if (read.mark >= to) return true;
      end = read.bytes;
      recordFrom = read.mark;
    }
    const current = this.known as Known;
    const record = encodeRecord(recordFrom, to, changes);
    const fd = openSync(this.file, "r+");
    try {
      // A record torn by a killed process, or not checking out, is cut off first.
      if (stats && stats.size !== end) ftruncateSync(fd, end);
      let done = 0;
      while (done < record.length) done += writeSync(fd, record, done, record.length - done, end + done);
    } finally {
      closeSync(fd);
    }
    this.known = { ...current, size: end + record.length, mark: to, savedAt };
    return true;
  }

  /** Writes the file anew: its header and one record of the changes from the base. */
  private create(base: DeltaBase, from: number, to: number, changes: ChangedRows, savedAt: string): void {
    const bytes = Buffer.concat([encodeHeader(base), encodeRecord(from, to, changes)]);
    // Named as the index file's temporary files are, so a killed process's leftover is removed alike.
    const tmp = `${this.file.slice(0, -".delta".length)}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}-delta`;
    try {
      writeFileSync(tmp, bytes);
      renameSync(tmp, this.file);
    } finally {
      rmSync(tmp, { force: true });
    }
    const now = statOrUndefined(this.file);
    this.known = now ? { ino: now.ino, size: bytes.length, base: base.checksum, mark: to, savedAt } : undefined;
  }

  /** Bytes and time of the last record this process read or wrote, when the file extends `checksum`. */
  state(checksum: string): { bytes: number; savedAt: string; mark: number } | undefined {
    const known = this.known;
    if (known) return known.base === checksum ? { bytes: known.size, savedAt: known.savedAt, mark: known.mark } : undefined;
    // Not read by this process (`docdb index status`): its header, size, and the log position its
    // last record names (records walked by their lengths, their payloads not checked: a report).
    let fd: number | undefined;
    try {
      const stats = statOrUndefined(this.file);
      if (!stats?.isFile()) return undefined;
      fd = openSync(this.file, "r");
      const head = Buffer.alloc(Math.min(stats.size, 4096));
      readSync(fd, head, 0, head.length, 0);
      const parsed = parseHeader(head);
      if (parsed?.header.base !== checksum) return undefined;
      let mark = parsed.header.baseHighWater;
      const record = Buffer.alloc(RECORD_HEAD + 64);
      for (let at = parsed.start; at + RECORD_HEAD <= stats.size; ) {
        const read = readSync(fd, record, 0, record.length, at);
        const length = record.readUInt32LE(0);
        const range = rangeOf(record.subarray(RECORD_HEAD, read));
        if (!range || at + RECORD_HEAD + length > stats.size) break;
        mark = range.to;
        at += RECORD_HEAD + length;
      }
      return { bytes: stats.size, savedAt: stats.mtime.toISOString(), mark };
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  /** Removes the file (a new base was installed, or the database is dropped). */
  remove(): void {
    this.known = undefined;
    rmSync(this.file, { force: true });
  }
}
