// `docdb audit`: the trail of writes (who, when, what, from where), newest first.
import { DocDBError } from "@docdb/core";
import { Command } from "commander";
import { action, parseInteger, printJson } from "../context.js";
import { printTable } from "./db.js";
import { parseDuration } from "./token.js";

/** "1h", "7d" (that long ago) or an ISO time → ISO time. */
export function parseSince(value: string, now = Date.now()): string {
  if (/^\d+\s*[mhdw]$/.test(value.trim())) return new Date(now - parseDuration(value, "--since")).toISOString();
  const at = Date.parse(value);
  if (Number.isNaN(at)) throw new DocDBError("INVALID_REQUEST", `--since takes a duration like 1h or 7d, or an ISO time, got "${value}"`);
  return new Date(at).toISOString();
}

export function auditCommand(): Command {
  return new Command("audit")
    .description("show the audit trail of writes (inserts, deletes, imports, merges, drops, token changes), newest first")
    .option("--since <when>", "only entries since then: 1h, 7d … or an ISO time")
    .option("--db <name>", "only entries of this database")
    .option("--limit <n>", "at most this many entries", "100")
    .option("--json", "print JSON")
    .action(
      action(async (docdb, options: { since?: string; db?: string; limit: string; json?: boolean }) => {
        const limit = parseInteger(options.limit, "--limit");
        if (limit < 1 || limit > 100_000) throw new DocDBError("INVALID_REQUEST", "--limit must be from 1 to 100000");
        const entries = await docdb.access().audit({
          ...(options.since ? { since: parseSince(options.since) } : {}),
          ...(options.db ? { database: options.db } : {}),
          limit,
        });
        if (options.json) return printJson(entries);
        if (entries.length === 0) return void process.stdout.write("no audit entries\n");
        printTable(
          ["AT", "WHO", "FROM", "ACTION", "DATABASE", "DETAIL"],
          entries.map((e) => [e.at, e.actor, e.origin, e.action, e.database || "-", e.detail.slice(0, 120)]),
        );
      }),
    );
}
