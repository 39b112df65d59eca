import { Command } from "commander";
import { action, printJson } from "../context.js";

export function dbCommand(): Command {
  const db = new Command("db").description("create and list databases (one SQLite file each, in the data folder)");
  db.command("create")
    .description("create a database (an existing one is left as it is)")
    .argument("<name>", "letters, digits, _ and - (1-64)")
    .option("--json", "print JSON")
    .action(
      action((docdb, name: string, options: { json?: boolean }) => {
        const result = docdb.createDatabase(name);
        if (options.json) printJson({ success: result.success, db_path: result.db_path });
        else process.stdout.write(`${result.created ? "created" : "exists"}: ${result.db_path}\n`);
      }),
    );
  db.command("list")
    .alias("ls")
    .description("list databases with their document and chunk counts")
    .option("--json", "print JSON")
    .action(
      action((docdb, options: { json?: boolean }) => {
        const list = docdb.listDatabases();
        if (options.json) return printJson(list);
        if (list.length === 0) {
          process.stdout.write(`no databases in ${docdb.dataDir} yet: \`docdb insert\` creates "vectors"\n`);
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
