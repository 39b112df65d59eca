import { wordSegmentation } from "@docdb/core";
import { Command } from "commander";
import { action, printJson } from "../context.js";
import { collectionsOf, printCollectionStatus, printCollectionsTable } from "./collection-status.js";
import { printTable } from "./db.js";

export function statusCommand(): Command {
  return new Command("status")
    .description("documents, chunks, pending embeddings and model of each database")
    .option("--db <name>", "only this database")
    .option("-n, --name <collection>", "one collection and its files (in --db, default vectors)")
    .option("--json", "print JSON")
    .action(
      action(async (docdb, options: { db?: string; name?: string; json?: boolean }) => {
        if (options.name !== undefined) return printCollectionStatus(docdb, options.db ?? "vectors", options.name, options.json);
        const list = options.db ? [await (await docdb.database(options.db)).status()] : await docdb.listDatabases();
        const collections = await collectionsOf(
          docdb,
          list.map((d) => d.name),
        );
        const location = await docdb.location();
        const engine = (await docdb.engine()).kind;
        const state = await docdb.embeddingState();
        const model = state.model;
        const words = wordSegmentation();
        if (options.json) {
          const { model: _model, ...current } = state;
          return printJson({
            store: { engine, location },
            word_segmentation: words,
            current_model: model,
            current_model_state: current,
            databases: list,
            collections,
          });
        }
        // A model that cannot load is not "the current model": say so, and what to do.
        const shown =
          model === null
            ? `none (keyword search only${state.problem ? `: ${state.problem}` : ""})`
            : !state.ready
              ? `${model}, which cannot load: ${state.problem}; new documents stay pending, keyword search works`
              : `${model}${state.note ? ` (${state.note})` : ""}`;
        const segmentation = words.source === "Intl.Segmenter" ? `Intl.Segmenter (slower: ${words.reason})` : words.source;
        process.stdout.write(`store: ${engine} ${location}\ncurrent embedding model: ${shown}\nword segmentation: ${segmentation}\n\n`);
        printTable(
          ["NAME", "DOCUMENTS", "CHUNKS", "PENDING", "REUSED", "MODEL"],
          list.map((d) => [
            d.name,
            String(d.documents),
            String(d.chunks),
            String(d.pending),
            String(d.reused_vectors),
            d.model ? `${d.model.provider}/${d.model.model} (${d.model.dimensions})` : "-",
          ]),
        );
        if (list.some((d) => d.reused_vectors > 0)) {
          process.stdout.write(
            "\nREUSED: vectors kept from replaced documents (unchanged chunks of re-imported files and upserts), not embedded again\n",
          );
        }
        printCollectionsTable(collections);
      }),
    );
}
