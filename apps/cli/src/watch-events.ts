import type { WatchEvent } from "@docdb/core";

/** One line per watcher event: NDJSON on stdout with --json, else a readable line. */
export function printWatchEvent(event: WatchEvent, json?: boolean): void {
  if (json) {
    const shown = event.type === "error" ? { ...event, error: event.error.toJSON() } : event;
    process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...shown })}\n`);
    return;
  }
  const time = new Date().toISOString().slice(11, 19);
  switch (event.type) {
    case "watching":
      process.stdout.write(`${time} watching ${event.collection}: ${event.source}\n`);
      break;
    case "unwatched":
      process.stdout.write(`${time} stopped watching ${event.collection}\n`);
      break;
    case "imported": {
      const s = event.summary;
      if (event.reason !== "start" && s.added + s.updated + s.removed + s.failed.length === 0) return;
      process.stdout.write(
        `${time} ${event.collection} (${event.reason}): ${s.added} added, ${s.updated} updated, ${s.removed} removed, ${s.unchanged} unchanged, ${s.chunks} chunk(s)${s.failed.length > 0 ? `, ${s.failed.length} failed` : ""} in ${s.seconds.toFixed(2)} s\n`,
      );
      for (const f of s.failed) process.stderr.write(`${time} ${event.collection}: failed: ${f.path}: ${f.message} (${f.reason})\n`);
      break;
    }
    case "error":
      process.stderr.write(`${time} ${event.collection}: ${event.error.code}: ${event.error.message}\n`);
      break;
  }
}
