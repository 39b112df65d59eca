import { DocDBError } from "@docdb/core";
import { Command } from "commander";
import { action, printJson } from "../context.js";

export function dbCommand(): Command {
  const db = new Command("db").description(
    "create, list and drop databases (a SQLite file each in the data folder, or a schema each on PostgreSQL)",
  );
  db.command("create")
    .description("create a database (an existing one is left as it is)")
    .argument("<name>", "letters, digits, _ and - (1-64)")
    .option("--json", "print JSON")
    .action(
      action(async (docdb, name: string, options: { json?: boolean }) => {
        const result = await docdb.createDatabase(name);
        if (options.json) printJson({ success: result.success, location: result.location, created: result.created });
        else process.stdout.write(`${result.created ? "created" : "exists"}: ${result.location}\n`);
      }),
    );
  db.command("list")
    .alias("ls")
    .description("list databases with their document and chunk counts")
    .option("--json", "print JSON")
    .action(
      action(async (docdb, options: { json?: boolean }) => {
        const list = await docdb.listDatabases();
        if (options.json) return printJson(list);
        if (list.length === 0) {
          process.stdout.write(`no databases in ${await docdb.location()} yet: \`docdb insert\` creates "vectors"\n`);
          return;
        }
        const rows = list.map((d) => [
          d.name,
          String(d.documents),
          String(d.chunks),
          String(d.pending),
          d.model ? `${d.model.provider}/${d.model.model} (${d.model.dimensions})` : "-",
        ]);
        printTable(["NAME", "DOCUMENTS", "CHUNKS", "PENDING", "MODEL"], rows);
      }),
    );
  db.command("drop")
    .description("delete a database and everything in it")
    .argument("<name>")
    .option("-y, --yes", "do not ask for confirmation")
    .option("--json", "print JSON")
    .action(
      action(async (docdb, name: string, options: { yes?: boolean; json?: boolean }) => {
        if (!options.yes) {
          throw new DocDBError("INVALID_REQUEST", `dropping "${name}" deletes every document in it: run again with --yes to confirm`);
        }
        const dropped = await docdb.dropDatabase(name);
        if (options.json) printJson({ dropped });
        else process.stdout.write(dropped ? `dropped ${name}\n` : `no database "${name}"; nothing dropped\n`);
      }),
    );
  return db;
}

export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  process.stdout.write(`${[line(header), ...rows.map(line)].join("\n")}\n`);
}
