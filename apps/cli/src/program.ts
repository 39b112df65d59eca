import { Command } from "commander";
import { collectionCommand } from "./commands/collection.js";
import { dbCommand } from "./commands/db.js";
import { deleteCommand } from "./commands/delete.js";
import { embedCommand, reembedCommand } from "./commands/embed.js";
import { findCommand } from "./commands/find.js";
import { getCommand } from "./commands/get.js";
import { importCommand } from "./commands/import.js";
import { insertCommand } from "./commands/insert.js";
import { listCommand } from "./commands/list.js";
import { serveCommand } from "./commands/serve.js";
import { statusCommand } from "./commands/status.js";
import { watchCommand } from "./commands/watch.js";

export function buildProgram(): Command {
  const program = new Command("docdb")
    .description("docdb: a local document database for AI agents (SQLite + sqlite-vec + FTS5)")
    .version("0.1.0")
    .option("--data-dir <dir>", "folder holding the databases (env DOCDB_DATA_DIR, default ./data)")
    .option("-v, --verbose", "log timings and provider calls to stderr")
    .showHelpAfterError("(run with --help for usage)")
    .addHelpText(
      "after",
      "\nEmbeddings: OPENAI_API_KEY set → OpenAI text-embedding-3-small; otherwise keyword search only\n(documents are kept and embedded later with `docdb embed --pending`).",
    );
  for (const command of [
    dbCommand(),
    insertCommand(),
    findCommand(),
    getCommand(),
    deleteCommand(),
    listCommand(),
    statusCommand(),
    embedCommand(),
    reembedCommand(),
    collectionCommand(),
    importCommand(),
    watchCommand(),
    serveCommand(),
  ]) {
    program.addCommand(command);
  }
  return program;
}
