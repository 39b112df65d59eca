import { Command } from "commander";
import { action, printJson } from "../context.js";
import { printTable } from "./db.js";

export function statusCommand(): Command {
  return new Command("status")
    .description("documents, chunks, pending embeddings and model of each database")
    .option("--db <name>", "only this database")
    .option("--json", "print JSON")
    .action(
      action((docdb, options: { db?: string; json?: boolean }) => {
        const list = options.db ? [docdb.database(options.db).status()] : docdb.listDatabases();
        const model = docdb.embedding ? `${docdb.embedding.provider}/${docdb.embedding.modelId} (${docdb.embedding.dimensions})` : null;
        if (options.json) return printJson({ data_dir: docdb.dataDir, current_model: model, databases: list });
        process.stdout.write(`data dir: ${docdb.dataDir}\ncurrent embedding model: ${model ?? "none (keyword search only)"}\n\n`);
        printTable(
          ["NAME", "DOCUMENTS", "CHUNKS", "PENDING", "MODEL"],
          list.map((d) => [
            d.name,
            String(d.documents),
            String(d.chunks),
            String(d.pending),
            d.model ? `${d.model.provider}/${d.model.model} (${d.model.dimensions})` : "-",
          ]),
        );
      }),
    );
}
