import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, relative, resolve } from "node:path";
import type { Target } from "./targets.js";

export type FileAction = "created" | "updated" | "unchanged" | "restored" | "deleted" | "kept" | "absent";

export interface FileChange {
  path: string;
  action: FileAction;
  /** The backup written (install) or used and then removed (uninstall). */
  backup?: string;
  note?: string;
  /** The change as -/+ lines (shown with --dry-run). */
  diff?: string;
}

export const backupPath = (file: string) => `${file}.docdb.bak`;

function read(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Writes through a temporary file and a rename, keeping the old file's permissions. */
function writeAtomic(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.docdb-tmp-${process.pid}`;
  writeFileSync(tmp, text);
  if (existsSync(file)) chmodSync(tmp, statSync(file).mode & 0o7777);
  renameSync(tmp, file);
}

/** Removes the now-empty folders between `file` and the nearest of `roots` (never a root itself). */
function pruneEmptyDirs(file: string, roots: string[]): void {
  const stops = new Set(roots.map((r) => resolve(r)));
  let dir = dirname(resolve(file));
  while (!stops.has(dir) && roots.some((r) => !relative(resolve(r), dir).startsWith(".."))) {
    if (readdirSync(dir).length > 0) return;
    rmdirSync(dir);
    dir = dirname(dir);
  }
}

/** A small line diff: the changed middle, with the unchanged lines around it trimmed. */
export function lineDiff(before: string, after: string): string {
  const a = before === "" ? [] : before.replace(/\r?\n$/, "").split(/\r?\n/);
  const b = after === "" ? [] : after.replace(/\r?\n$/, "").split(/\r?\n/);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const context = (lines: string[]) => lines.map((l) => `  ${l}`);
  return [
    ...context(a.slice(Math.max(0, head - 2), head)),
    ...a.slice(head, a.length - tail).map((l) => `- ${l}`),
    ...b.slice(head, b.length - tail).map((l) => `+ ${l}`),
    ...context(a.slice(a.length - tail, Math.min(a.length, a.length - tail + 2))),
  ].join("\n");
}

/**
 * Installs into each target. A file that changes is first copied to `<file>.docdb.bak` — unless
 * that backup already holds the file as it was before docdb (a re-install with other options),
 * so the backup is always "the file before docdb" and uninstall can restore its exact bytes.
 */
export function installTargets(targets: Target[], dryRun: boolean): FileChange[] {
  // Everything is computed (and every file checked) before anything is written.
  const plans = targets.map((target) => {
    const current = read(target.file);
    const next = target.install(current);
    const backup = read(backupPath(target.file));
    const keepBackup = current !== undefined && backup !== undefined && target.sameBesidesOurs(current, backup);
    return { target, current, next, backup, keepBackup };
  });
  return plans.map(({ target, current, next, keepBackup }) => {
    if (current === next) return { path: target.file, action: "unchanged" };
    const change: FileChange = {
      path: target.file,
      action: current === undefined ? "created" : "updated",
      diff: lineDiff(current ?? "", next),
    };
    if (current !== undefined) change.backup = backupPath(target.file);
    if (dryRun) return change;
    if (current !== undefined && !keepBackup) writeAtomic(backupPath(target.file), current);
    writeAtomic(target.file, next);
    return change;
  });
}

/**
 * Removes what install added. When nothing but docdb's part changed since, the backup's bytes
 * come back exactly (and a file docdb created is deleted); otherwise only docdb's part is taken out.
 */
export function uninstallTargets(targets: Target[], dryRun: boolean, roots: string[]): FileChange[] {
  const plans = targets.map((target) => {
    const current = read(target.file);
    const backupFile = backupPath(target.file);
    const backup = read(backupFile);
    if (current === undefined || !target.present(current)) return { target, change: { path: target.file, action: "absent" } as FileChange };
    if (backup !== undefined && target.sameBesidesOurs(current, backup)) {
      return {
        target,
        next: backup,
        change: { path: target.file, action: "restored", backup: backupFile, diff: lineDiff(current, backup) } as FileChange,
      };
    }
    const next = target.uninstall(current, backup);
    if (next === null) return { target, next, change: { path: target.file, action: "deleted", diff: lineDiff(current, "") } as FileChange };
    if (typeof next === "object") return { target, change: { path: target.file, action: "kept", note: next.keep } as FileChange };
    const change: FileChange = { path: target.file, action: "updated", diff: lineDiff(current, next) };
    if (backup !== undefined) change.backup = backupFile;
    return { target, next, change };
  });
  if (!dryRun) {
    for (const { target, next, change } of plans) {
      if (next === undefined) continue;
      if (next === null) {
        rmSync(target.file);
        pruneEmptyDirs(target.file, roots);
      } else writeAtomic(target.file, next);
      if (change.backup) rmSync(change.backup, { force: true });
    }
  }
  return plans.map((p) => p.change);
}
