#!/usr/bin/env node
import { parseArgs } from "node:util";
import { createLogger, DocDBError, explicitEmbeddingConfig, loadConfig, openDocDB, toDocDBError } from "@docdb/core";
import { withConfigFiles } from "./options.js";
import { runServer } from "./run.js";
import { SERVER_VERSION } from "./server.js";

const USAGE = `Usage: docdb-mcp [options]

Serves docdb's tools to AI agents over MCP: stdio by default, Streamable HTTP with --http.

Options:
  --data-dir <dir>       folder holding the SQLite databases (docdb.config.json dataDir, env DOCDB_DATA_DIR,
                         default ./data)
  --store <url>          keep the databases on PostgreSQL: postgres://user:pass@host:5432/db
                         (docdb.config.json store, env DOCDB_STORE_URL)
  --db <name>            database for calls without db_name (default vectors)
  --http                 serve Streamable HTTP on /mcp instead of stdio
  --host <host>          HTTP host (env DOCDB_HTTP_HOST, default 127.0.0.1; others need a token)
  --port <port>          HTTP port (env DOCDB_HTTP_PORT, default 7411)
  --token <token>        require Authorization: Bearer <token> (env DOCDB_HTTP_TOKEN)
  --allow-origin <url>   also accept browser requests from this origin (repeatable;
                         env DOCDB_HTTP_ALLOWED_ORIGINS, comma-separated)
  -h, --help             show this help
  --version              print the version

Logs go to stderr (level: env DOCDB_LOG_LEVEL, default info). Embeddings: see DOCDB_EMBEDDING.
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
  // Flags > docdb.config.json (project, then user) > environment > defaults.
  const config = loadConfig({ flags: { dataDir: values["data-dir"], store: values.store } });
  const docdb = openDocDB({
    store: config.values.store,
    dataDir: config.values.dataDir,
    logger: createLogger({ name: "docdb-mcp" }),
    embedding: explicitEmbeddingConfig(config),
    chunkOptions: { size: config.values.chunkSize, overlap: config.values.chunkOverlap },
  });
  await runServer(
    docdb,
    withConfigFiles(
      {
        http: values.http,
        host: values.host,
        port: values.port,
        token: values.token,
        allowedOrigins: values["allow-origin"],
        defaultDb: values.db,
      },
      config,
    ),
  );
}

function parse() {
  return parseArgs({
    options: {
      "data-dir": { type: "string" },
      store: { type: "string" },
      db: { type: "string" },
      http: { type: "boolean" },
      host: { type: "string" },
      port: { type: "string" },
      token: { type: "string" },
      "allow-origin": { type: "string", multiple: true },
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
