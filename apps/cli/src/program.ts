// The flags only: the server itself is loaded when `docdb serve` runs.
import { SERVE_FLAGS } from "@docdb/mcp-server/flags";
import { Command } from "commander";
import { auditCommand } from "./commands/audit.js";
import { collectionCommand } from "./commands/collection.js";
import { configCommand } from "./commands/config.js";
import { copyCommand } from "./commands/copy.js";
import { dbCommand } from "./commands/db.js";
import { deleteCommand } from "./commands/delete.js";
import { embedCommand, reembedCommand } from "./commands/embed.js";
import { evalCommand } from "./commands/eval.js";
import { findCommand } from "./commands/find.js";
import { getCommand } from "./commands/get.js";
import { importCommand } from "./commands/import.js";
import { indexCommand } from "./commands/index-command.js";
import { insertCommand } from "./commands/insert.js";
import { installCommand, uninstallCommand } from "./commands/install.js";
import { listCommand } from "./commands/list.js";
import { modelsCommand } from "./commands/models.js";
import { qaCommand } from "./commands/qa.js";
import { serveCommand } from "./commands/serve.js";
import { sqlCommand } from "./commands/sql.js";
import { statusCommand } from "./commands/status.js";
import { tokenCommand } from "./commands/token.js";
import { uiCommand } from "./commands/ui.js";
import { watchCommand } from "./commands/watch.js";
import { handleUsageErrors } from "./usage.js";

export function buildProgram(): Command {
  const program = new Command("docdb")
    .description("docdb: a local document database for AI agents (SQLite by default, PostgreSQL + pgvector when shared)")
    .version("0.1.0")
    .option("-v, --verbose", "log timings and provider calls to stderr");
  // --data-dir, --store, --embedding, --embedding-model, --model-dir: one definition with docdb-mcp.
  for (const flag of SERVE_FLAGS.filter((f) => f.global)) program.option(`--${flag.name} <${flag.value}>`, flag.description);
  program
    .showHelpAfterError("(run with --help for usage)")
    .addHelpText(
      "after",
      "\nEmbeddings: OPENAI_API_KEY set → OpenAI text-embedding-3-small; otherwise the local model\n(multilingual-e5-small: `docdb models`). Without a usable model documents are kept, found by\nkeywords, and embedded later with `docdb embed --pending`.",
    );
  for (const command of [
    dbCommand(),
    insertCommand(),
    findCommand(),
    getCommand(),
    deleteCommand(),
    listCommand(),
    statusCommand(),
    sqlCommand(),
    embedCommand(),
    reembedCommand(),
    indexCommand(),
    modelsCommand(),
    collectionCommand(),
    importCommand(),
    watchCommand(),
    qaCommand(),
    serveCommand(),
    uiCommand(),
    evalCommand(),
    copyCommand(),
    installCommand(),
    uninstallCommand(),
    configCommand(),
    tokenCommand(),
    auditCommand(),
  ]) {
    program.addCommand(command);
  }
  handleUsageErrors(program);
  return program;
}
