/** One step of a model download: bytes of one file so far. */
export interface DownloadProgress {
  model: string;
  file: string;
  loaded: number;
  total: number;
  done: boolean;
}

const MB = 1024 * 1024;

/**
 * Download progress on stderr (stdout carries command output and MCP's stdio protocol): a
 * redrawn line on a terminal, otherwise a line every few seconds per file and one when it is done.
 */
export function stderrDownloadProgress(stream: NodeJS.WriteStream = process.stderr): (p: DownloadProgress) => void {
  const lastPrinted = new Map<string, number>();
  return (p) => {
    const size = p.total > 0 ? `${(p.loaded / MB).toFixed(1)}/${(p.total / MB).toFixed(1)} MB` : `${(p.loaded / MB).toFixed(1)} MB`;
    const percent = p.total > 0 ? ` ${Math.floor((p.loaded / p.total) * 100)}%` : "";
    const line = `downloading ${p.model} ${p.file}${percent} (${size})`;
    if (stream.isTTY) {
      stream.write(`\r${line}\x1b[K${p.done ? "\n" : ""}`);
      return;
    }
    const now = Date.now();
    if (p.done || now - (lastPrinted.get(p.file) ?? 0) > 3000) {
      stream.write(`${p.done ? `downloaded ${p.model} ${p.file} (${size})` : line}\n`);
      lastPrinted.set(p.file, now);
    }
  };
}
