import {
  accessSync,
  chmodSync,
  chownSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, resolve } from "node:path";
import { DocDBError } from "@docdb/core";

/**
 * The file-system side of `docdb install`: config files are edited in place — through symbolic
 * links (the link stays, its target changes), with their byte-order mark, permissions and owner
 * kept — and every surprise (a read-only file, a folder where the file should be, a folder docdb
 * may not write in, a full disk) is an INVALID_REQUEST naming the path, never INTERNAL.
 */

const BOM = "\uFEFF";

/** A file's text without its UTF-8 byte-order mark, and whether it had one (written back as it was). */
export interface FileText {
  text: string;
  bom: boolean;
  /** The file exactly as read (what a backup holds). */
  bytes: Buffer;
}

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** A file-system error as a clear message about `path` (what docdb was doing: "read", "write", …). */
export function fsError(error: unknown, path: string, doing: string): DocDBError {
  if (error instanceof DocDBError) return error;
  const code = codeOf(error);
  const fail = (why: string) => new DocDBError("INVALID_REQUEST", `cannot ${doing} ${path}: ${why} (nothing was changed)`);
  switch (code) {
    case "EISDIR":
      return fail("it is a folder, not a file: move the folder away (or choose another --scope), then run again");
    case "ENOTDIR":
      return fail("part of that path is a file where a folder should be: move that file away, then run again");
    case "EACCES":
    case "EPERM":
      return fail("permission denied: make it (and its folder) writable by you, e.g. chmod u+w, or run as its owner");
    case "EROFS":
      return fail("the file system is read-only");
    case "ENOSPC":
    case "EDQUOT":
      return fail("no space left on the device (or over quota): free some space, then run again");
    case "ELOOP":
      return fail("too many levels of symbolic links (a link loop?)");
    case "ENAMETOOLONG":
      return fail("the path is too long");
    default: {
      const message = error instanceof Error ? error.message : String(error);
      return fail(code ? `${code} (${message})` : message);
    }
  }
}

/**
 * The file `file` finally names: symbolic links followed, also a dangling one (the file it
 * points at, which writing creates). Missing files name themselves.
 */
export function realTarget(file: string): string {
  let path = resolve(file);
  for (let hops = 0; hops < 40; hops++) {
    let stat: Stats;
    try {
      stat = lstatSync(path);
    } catch (error) {
      if (codeOf(error) === "ENOENT") return path;
      throw fsError(error, file, "read");
    }
    if (!stat.isSymbolicLink()) {
      try {
        return realpathSync(path);
      } catch (error) {
        throw fsError(error, file, "read");
      }
    }
    let dir = dirname(path);
    try {
      dir = realpathSync(dir);
    } catch {
      // The folder itself is reached through a dangling link: resolve lexically.
    }
    path = resolve(dir, readlinkSync(path));
  }
  throw fsError(Object.assign(new Error("too many links"), { code: "ELOOP" }), file, "read");
}

/** The file's text, or undefined when it does not exist (a dangling link counts as missing). */
export function readText(file: string): FileText | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    if (codeOf(error) === "ENOENT") return undefined;
    throw fsError(error, file, "read");
  }
  const text = bytes.toString("utf8");
  return text.startsWith(BOM) ? { text: text.slice(1), bom: true, bytes } : { text, bom: false, bytes };
}

const where = (file: string, target: string) => (target === resolve(file) ? file : `${file} (a link to ${target})`);

/**
 * Throws unless `file` can be changed in place: it must be a regular file (or missing) whose
 * mode has a write bit — checked on the mode, not only by the system, since root may write a
 * 0444 file that its owner meant to keep as it is — in a folder docdb may write in.
 */
export function checkWritable(file: string): void {
  const target = realTarget(file);
  let stat: Stats | undefined;
  try {
    stat = statSync(target);
  } catch (error) {
    if (codeOf(error) !== "ENOENT") throw fsError(error, file, "write");
  }
  if (stat?.isDirectory()) throw fsError(Object.assign(new Error(), { code: "EISDIR" }), where(file, target), "write");
  if (stat && !stat.isFile()) {
    throw new DocDBError("INVALID_REQUEST", `cannot write ${where(file, target)}: it is not a regular file (nothing was changed)`);
  }
  if (stat && (stat.mode & 0o222) === 0) {
    const mode = (stat.mode & 0o777).toString(8).padStart(4, "0");
    throw new DocDBError(
      "INVALID_REQUEST",
      `${where(file, target)} is read-only (mode ${mode}), so docdb leaves it as it is: make it writable (chmod u+w ${target}) and run again, or edit it by hand (nothing was changed)`,
    );
  }
  // The nearest folder that exists must take new files (the temporary file, new folders).
  let dir = dirname(target);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  try {
    if (!statSync(dir).isDirectory()) throw Object.assign(new Error(), { code: "ENOTDIR" });
    accessSync(dir, constants.W_OK);
    if (stat) accessSync(target, constants.W_OK);
  } catch (error) {
    throw fsError(error, where(file, target), "write");
  }
}

/**
 * Writes `content` (text, after a byte-order mark when `bom`, or exact bytes) to the file `file`
 * names, through links: a temporary file beside the target, given the old file's permissions
 * and owner, then renamed over it.
 */
export function writeText(file: string, content: string | Buffer, bom = false): void {
  const target = realTarget(file);
  const tmp = `${target}.docdb-tmp-${process.pid}`;
  try {
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(tmp, typeof content === "string" && bom ? BOM + content : content);
    if (existsSync(target)) {
      const old = statSync(target);
      chmodSync(tmp, old.mode & 0o7777);
      try {
        chownSync(tmp, old.uid, old.gid);
      } catch {
        // Only root may give a file away; anyone else writes files they own.
      }
    }
    renameSync(tmp, target);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw fsError(error, where(file, target), "write");
  }
}

/** Deletes the file `file` names (through a link: the target goes, the link stays). */
export function removeText(file: string): void {
  const target = realTarget(file);
  try {
    rmSync(target, { force: true });
  } catch (error) {
    throw fsError(error, where(file, target), "delete");
  }
}

/** The first free `<backup>.N` (N = 1, 2, …): where an earlier backup is kept. */
export function freeBackupName(backup: string): string {
  let n = 1;
  while (existsSync(`${backup}.${n}`) || isLink(`${backup}.${n}`)) n++;
  return `${backup}.${n}`;
}

/** Moves an earlier backup to `kept` (from freeBackupName). */
export function moveEarlierBackup(backup: string, kept: string): void {
  try {
    renameSync(backup, kept);
  } catch (error) {
    throw fsError(error, backup, "keep the earlier backup");
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
