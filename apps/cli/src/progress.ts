/**
 * Progress on stderr: a redrawn line on a terminal, a line every few seconds otherwise
 * (logs and CI), and nothing when quiet.
 */
export function createProgress(label: string, options: { quiet?: boolean } = {}) {
  const tty = process.stderr.isTTY === true;
  const started = Date.now();
  let lastPrint = 0;
  const render = (done: number, total: number) => {
    const seconds = (Date.now() - started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const eta = rate > 0 && total > done ? Math.round((total - done) / rate) : 0;
    const pct = total > 0 ? Math.floor((done / total) * 100) : 100;
    if (tty) {
      const width = 24;
      const filled = Math.round((pct / 100) * width);
      return `${label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total} ${pct}% ${rate.toFixed(1)}/s ETA ${eta}s`;
    }
    return `${label}: ${done}/${total} (${pct}%), ${rate.toFixed(1)}/s`;
  };
  return {
    update(done: number, total: number) {
      if (options.quiet) return;
      const now = Date.now();
      if (tty) process.stderr.write(`\r${render(done, total)}\x1b[K`);
      else if (now - lastPrint > 2000 || done === total) {
        process.stderr.write(`${render(done, total)}\n`);
        lastPrint = now;
      }
    },
    finish() {
      if (!options.quiet && tty) process.stderr.write("\n");
    },
  };
}
