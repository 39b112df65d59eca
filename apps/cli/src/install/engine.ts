import { readdirSync, rmdirSync, rmSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { DocDBError } from "@docdb/core";
import { checkWritable, type FileText, freeBackupName, fsError, moveEarlierBackup, readText, removeText, writeText } from "./files.js";
import type { Target } from "./targets.js";

export type FileAction = "created" | "updated" | "unchanged" | "restored" | "deleted" | "kept" | "absent";

export interface FileChange {
  path: string;
  action: FileAction;
  /** The backup written (install) or used and then removed (uninstall). */
  backup?: string;
  /** Where an earlier backup that was in the way was moved (install; never deleted). */
  earlierBackup?: string;
  note?: string;
  /** The change as -/+ lines (shown with --dry-run). */
  diff?: string;
}

export const backupPath = (file: string) => `${file}.docdb.bak`;

/**
 * Runs the writes in order; when one fails after others were made, its error says which files
 * were already written (everything was checked first, so this is a full disk or the like).
 */
function writeAll(steps: { file: string; write: () => void }[]): void {
  const done: string[] = [];
  for (const step of steps) {
    try {
      step.write();
    } catch (error) {
      const e = fsError(error, step.file, "write");
      if (done.length === 0) throw e;
      throw new DocDBError(
        "INVALID_REQUEST",
        `${e.message.replace(/ \(nothing was changed\)$/, "")} (already written: ${done.join(", ")})`,
      );
    }
    done.push(step.file);
  }
}

/** Removes the now-empty folders between `file` and the nearest of `roots` (never a root itself). */
function pruneEmptyDirs(file: string, roots: string[]): void {
  const stops = new Set(roots.map((r) => resolve(r)));
  let dir = dirname(resolve(file));
  while (!stops.has(dir) && roots.some((r) => !relative(resolve(r), dir).startsWith(".."))) {
    try {
      if (readdirSync(dir).length > 0) return;
      rmdirSync(dir);
    } catch {
      return; // an emptied folder that cannot be removed is only left behind
    }
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

/** Whether `current` and `backup` differ only in docdb's part; a backup that does not even parse is not docdb's. */
function sameBesidesOurs(target: Target, current: FileText, backup: FileText | undefined): boolean {
  if (backup === undefined) return false;
  try {
    return target.sameBesidesOurs(current.text, backup.text);
  } catch {
    return false;
  }
}

/**
 * Installs into each target. A file that changes is first copied to `<file>.docdb.bak` — unless
 * that backup already holds the file as it was before docdb (a re-install with other options),
 * so the backup is always "the file before docdb" and uninstall can restore its exact bytes. An
 * earlier backup that is something else is moved to `<file>.docdb.bak.N`, never overwritten.
 */
export function installTargets(targets: Target[], dryRun: boolean): FileChange[] {
  // Everything is computed (and every file checked) before anything is written.
  const plans = targets.map((target) => {
    const current = readText(target.file);
    const next = target.install(current?.text);
    const backupFile = backupPath(target.file);
    const backup = readText(backupFile);
    if (current?.text !== next) checkWritable(target.file);
    const keepBackup = current !== undefined && sameBesidesOurs(target, current, backup);
    return { target, current, next, backupFile, backup, keepBackup };
  });
  const writes: { file: string; write: () => void }[] = [];
  const changes = plans.map(({ target, current, next, backupFile, backup, keepBackup }): FileChange => {
    if (current?.text === next) return { path: target.file, action: "unchanged" };
    const change: FileChange = {
      path: target.file,
      action: current === undefined ? "created" : "updated",
      diff: lineDiff(current?.text ?? "", next),
    };
    if (current !== undefined) {
      change.backup = backupFile;
      if (!keepBackup && backup !== undefined) change.earlierBackup = freeBackupName(backupFile);
      if (!keepBackup) {
        writes.push({
          file: backupFile,
          write: () => {
            if (change.earlierBackup) moveEarlierBackup(backupFile, change.earlierBackup);
            writeText(backupFile, current.bytes);
          },
        });
      }
    }
    writes.push({ file: target.file, write: () => writeText(target.file, next, current?.bom ?? false) });
    return change;
  });
  if (!dryRun) writeAll(writes);
  return changes;
}

/**
 * Removes what install added. When nothing but docdb's part changed since, the backup's bytes
 * come back exactly (and a file docdb created is deleted); otherwise only docdb's part is taken out.
 */
export function uninstallTargets(targets: Target[], dryRun: boolean, roots: string[]): FileChange[] {
  const plans = targets.map((target) => {
    const current = readText(target.file);
    const backupFile = backupPath(target.file);
    const backup = readText(backupFile);
    if (current === undefined || !target.present(current.text))
      return { target, change: { path: target.file, action: "absent" } as FileChange };
    checkWritable(target.file);
    if (backup !== undefined && sameBesidesOurs(target, current, backup)) {
      return {
        target,
        next: backup.bytes,
        change: { path: target.file, action: "restored", backup: backupFile, diff: lineDiff(current.text, backup.text) } as FileChange,
      };
    }
    const next = target.uninstall(current.text, backup?.text);
    if (next === null)
      return { target, next, change: { path: target.file, action: "deleted", diff: lineDiff(current.text, "") } as FileChange };
    if (typeof next === "object") return { target, change: { path: target.file, action: "kept", note: next.keep } as FileChange };
    const change: FileChange = { path: target.file, action: "updated", diff: lineDiff(current.text, next) };
    if (backup !== undefined) change.backup = backupFile;
    return { target, next, bom: current.bom, change };
  });
  if (!dryRun) {
    writeAll(
      plans.flatMap(({ target, next, bom, change }) => {
        if (next === undefined) return [];
        return [
          {
            file: target.file,
            write: () => {
              if (next === null) {
                removeText(target.file);
                pruneEmptyDirs(target.file, roots);
              } else writeText(target.file, next, bom);
              if (change.backup) rmSync(change.backup, { force: true });
            },
          },
        ];
      }),
    );
  }
  return plans.map((p) => p.change);
}
