// What `docdb index status` shows of a SQLite database's keyword index: its state, rows, files and
// backlog, from the index in memory when there is one, else from the file and its delta.
import type { KeywordIndexStatus } from "@docdb/store";
import { latestDamage, statOrUndefined } from "../hnsw/verify.js";
import type { DeltaFile } from "./delta.js";
import type { KeywordFile } from "./file.js";
import type { KeywordLog } from "./log.js";
import type { Live } from "./saver.js";

export function keywordStatus(parts: {
  files: KeywordFile;
  delta: DeltaFile;
  log: KeywordLog;
  chunks: number;
  threshold: number;
  live: Live | undefined;
  /** A load, build or catch-up runs in the background. */
  busy: boolean;
}): KeywordIndexStatus {
  const { files, delta: deltaFile, log, chunks, threshold, live, busy } = parts;
  const header = files.readHeader();
  const usable = header !== undefined && files.staleness(header) === undefined;
  const delta = usable ? deltaFile.state(header.checksum) : undefined;
  const bytes = usable ? (statOrUndefined(files.file)?.size ?? 0) + (delta?.bytes ?? 0) : 0;
  // Another process's saves since the file are in its delta: its last record's mark counts.
  const mark = live?.highWater ?? (usable ? Math.max(header.highWater, delta?.mark ?? 0) : undefined);
  const backlog = mark === undefined ? 0 : log.backlog(mark);
  const state: KeywordIndexStatus["state"] =
    chunks < threshold && !live ? "none" : busy ? "building" : mark === undefined ? "missing" : backlog > 0 ? "behind" : "ready";
  const note = latestDamage(files.file);
  return {
    state,
    location: files.file,
    threshold,
    chunks,
    rows: live?.index.rows ?? (usable ? header.rows : 0),
    bytes,
    backlog,
    savedAt: usable ? (delta && delta.savedAt > header.savedAt ? delta.savedAt : header.savedAt) : null,
    ...(note ? { damaged: { ...note, rebuilt: usable && header.savedAt >= note.foundAt } } : {}),
  };
}
