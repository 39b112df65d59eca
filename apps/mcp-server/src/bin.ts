#!/usr/bin/env node
import { parseArgs } from "node:util";
import { createLogger, DocDBError, explicitEmbeddingConfig, loadConfig, openDocDB, settingsFromEnv, toDocDBError } from "@docdb/core";
import { config as zodConfig } from "zod/v4";
import { CONFIG_FLAGS, fromServeFlags, parseArgsOptions, serveFlagsHelp } from "./flags.js";
import { withConfigFiles } from "./options.js";
import { runServer } from "./run.js";
import { SERVER_VERSION } from "./server.js";
import { toolDescriptorsBeside } from "./tool-descriptors.js";

// zod compiles a fast path for each object schema with \`new Function\` on its first parse: code
// the launcher's code cache cannot keep, compiled anew at every start for a few messages. The
// plain path checks MCP's small messages just as well.
zodConfig({ jitless: true });

const USAGE = `Usage: docdb-mcp [options]

Serves docdb's tools to AI agents over MCP: stdio by default, Streamable HTTP with --http.
The same flags as \`docdb serve\`.

Options:
${serveFlagsHelp()}
  -h, --help             show this help
  --version              print the version

Logs go to stderr (level: env DOCDB_LOG_LEVEL, default info). Pending embeddings are embedded in the
background while the server runs.
`;

async function main(): Promise<void> {
  let values: ReturnType<typeof parse>["values"];
  try {
    values = parse().values;
  } catch (error) {
    throw new DocDBError("INVALID_REQUEST", `${(error as Error).message}\n\n${USAGE}`);
  }
  if (values.help) return void process.stdout.write(USAGE);
  if (values.version) return void process.stdout.write(`${SERVER_VERSION}\n`);
  const flags = fromServeFlags((name) => (values as Record<string, unknown>)[name]);
  // Flags > docdb.config.json (project, then user) > environment > defaults.
  const config = loadConfig({ env: process.env, flags: flags.config, flagNames: CONFIG_FLAGS });
  const settings = settingsFromEnv(process.env);
  const docdb = openDocDB({
    settings,
    store: config.values.store,
    dataDir: config.values.dataDir,
    logger: createLogger({ name: "docdb-mcp", level: settings.logLevel ?? "info" }),
    embedding: explicitEmbeddingConfig(config),
    chunkOptions: { size: config.values.chunkSize, overlap: config.values.chunkOverlap },
  });
  const toolDescriptors = toolDescriptorsBeside(import.meta.url);
  await runServer(
    docdb,
    withConfigFiles({ ...flags.serve, defaultDb: flags.serve.defaultDb ?? config.values.db, toolDescriptors }, config),
  );
}

function parse() {
  return parseArgs({
    options: {
      ...parseArgsOptions(),
      help: { type: "boolean", short: "h" },
      version: { type: "boolean" },
    },
    strict: true,
    allowPositionals: false,
  });
}

main().catch((error: unknown) => {
  const failure = toDocDBError(error);
  process.stderr.write(`${failure.code}: ${failure.message}\n`);
  process.exitCode = failure.code === "INVALID_REQUEST" ? 2 : 1;
});
