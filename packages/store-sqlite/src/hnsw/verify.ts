// Checking an index file beside the database before it is used (the HNSW file before usearch sees
// it, the keyword index file): SHA-256 checksums, and setting a damaged file (or a directory in
// its place) aside as `<file>.corrupt-<time>` with a note `<…>.json` saying when and why.
import { readdirSync, readFileSync, renameSync, type Stats, statSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";

/** Bytes read per call while hashing. */
const CHUNK = 4 << 20;

/** Which file was looked at: a file renamed into place since is another one. */
export interface FileIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
}

export function identity(stats: Stats): FileIdentity {
  return { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs };
}

export function sameIdentity(a: FileIdentity, b: FileIdentity | undefined): boolean {
  return b !== undefined && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

/** A SHA-256 hasher; node:crypto is required on first use, not loaded at start-up (it costs the programs a few ms). */
export function sha256Hasher(): import("node:crypto").Hash {
  const { createHash } = createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
  return createHash("sha256");
}

/** `sha256:<hex>` of bytes in memory. */
export function sha256(bytes: Uint8Array): string {
  return `sha256:${sha256Hasher().update(bytes).digest("hex")}`;
}

/** `sha256:<hex>` of a whole file, read in 4 MiB pieces (about 1 GB/s), with the identity of what was read. */
export async function checksum(path: string): Promise<{ checksum: string; identity: FileIdentity }> {
  const handle = await open(path, "r");
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw Object.assign(new Error(`${path} is not a regular file`), { code: "ENOTFILE" });
    const hash = sha256Hasher();
    const buffer = Buffer.allocUnsafe(CHUNK);
    for (let position = 0; ; ) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, position);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
      position += bytesRead;
    }
    return { checksum: `sha256:${hash.digest("hex")}`, identity: identity(stats) };
  } finally {
    await handle.close();
  }
}

/** What the path holds (a link followed); undefined when nothing is there. */
export function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** A file found damaged and set aside, as its note says. */
export interface DamageNote {
  /** When it was found (ISO time). */
  foundAt: string;
  /** What was wrong, for people. */
  reason: string;
  /** Where the damaged file (or directory) was moved. */
  setAside: string;
}

/** The name a damaged file is moved to: `<file>.corrupt-<time>` (a number added if taken). */
function asideName(file: string, at: Date): string {
  const stamp = at.toISOString().replace(/[:.]/g, "-");
  const base = `${file}.corrupt-${stamp}`;
  for (let n = 0; ; n++) {
    const candidate = n === 0 ? base : `${base}-${n}`;
    if (statOrUndefined(candidate) === undefined && statOrUndefined(`${candidate}.json`) === undefined) return candidate;
  }
}

/**
 * Moves `file` aside (never deletes it) and writes its note; `extra` (the description it came
 * with) goes into the note. Throws when the file cannot be moved.
 */
export function setAside(file: string, reason: string, extra: unknown): DamageNote {
  const at = new Date();
  const target = asideName(file, at);
  renameSync(file, target);
  const note: DamageNote = { foundAt: at.toISOString(), reason, setAside: target };
  try {
    writeFileSync(`${target}.json`, `${JSON.stringify({ ...note, description: extra }, null, 2)}\n`);
  } catch {
    // The file is out of the way; the note only explains it.
  }
  return note;
}

/** The newest note of a file set aside beside `file`, if any. */
export function latestDamage(file: string): DamageNote | undefined {
  const prefix = `${basename(file)}.corrupt-`;
  let names: string[];
  try {
    names = readdirSync(dirname(file)).filter((n) => n.startsWith(prefix) && n.endsWith(".json"));
  } catch {
    return undefined;
  }
  let latest: DamageNote | undefined;
  for (const name of names) {
    try {
      const note = JSON.parse(readFileSync(join(dirname(file), name), "utf8")) as DamageNote;
      if (typeof note.foundAt === "string" && (!latest || note.foundAt > latest.foundAt)) {
        latest = { foundAt: note.foundAt, reason: String(note.reason), setAside: String(note.setAside) };
      }
    } catch {
      // Not one of ours, or unreadable: ignored.
    }
  }
  return latest;
}

/** Why a path that should hold a regular file does not ("a directory", …); undefined when it is one or absent. */
export function notAFile(stats: Stats | undefined): string | undefined {
  if (!stats || stats.isFile()) return undefined;
  if (stats.isDirectory()) return "a directory";
  return "not a regular file";
}

/** Whether a process with this id runs on this machine (one of another user counts as running). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
