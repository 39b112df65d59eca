import type { ImportProgress } from "@docdb/core";

function bar(done: number, total: number, width = 20): string {
  const filled = total > 0 ? Math.round((done / total) * width) : width;
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`;
}

/**
 * Import progress on stderr: one redrawn line on a terminal (files, chunks, embeddings, rate,
 * ETA), a plain line every few seconds otherwise, nothing when quiet.
 */
export function createImportProgress(name: string, options: { quiet?: boolean; intervalMs?: number } = {}) {
  const tty = process.stderr.isTTY === true;
  const started = Date.now();
  const interval = options.intervalMs ?? 2000;
  let lastLine = 0;
  let drawn = false;

  const render = (p: ImportProgress): string => {
    const seconds = (Date.now() - started) / 1000;
    if (p.phase === "scan") return `${name}: scanning folder…`;
    if (p.phase === "embed") {
      return `${name}: embedding ${tty ? `${bar(p.embedded, p.embed_total)} ` : ""}${p.embedded}/${p.embed_total} chunks`;
    }
    const rate = seconds > 0 ? p.files_done / seconds : 0;
    const eta = rate > 0 && p.files_total > p.files_done ? Math.round((p.files_total - p.files_done) / rate) : 0;
    return `${name}: files ${tty ? `${bar(p.files_done, p.files_total)} ` : ""}${p.files_done}/${p.files_total}, ${p.chunks} chunks, ${rate.toFixed(1)} files/s, ETA ${eta}s`;
  };

  return {
    update(p: ImportProgress): void {
      if (options.quiet) return;
      if (tty) {
        process.stderr.write(`\r${render(p)}\x1b[K`);
        drawn = true;
        return;
      }
      const now = Date.now();
      const last = p.phase === "files" ? p.files_done === p.files_total : p.phase === "embed" && p.embedded === p.embed_total;
      if (now - lastLine >= interval || (last && p.files_total > 0)) {
        process.stderr.write(`${render(p)}\n`);
        lastLine = now;
      }
    },
    /** Ends a redrawn line so that a message can follow on its own line. */
    interrupt(): void {
      if (drawn) process.stderr.write("\n");
      drawn = false;
    },
    finish(): void {
      if (drawn) process.stderr.write("\n");
      drawn = false;
    },
  };
}
