import { Command } from "commander";
import { configFromCommand, openFromCommand, parseInteger, reportError } from "../context.js";

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function serveCommand(): Command {
  return new Command("serve")
    .description("serve docdb to AI agents over MCP (stdio by default, Streamable HTTP with --http)")
    .option("--http", "serve Streamable HTTP on /mcp instead of stdio")
    .option("--host <host>", "HTTP host (env DOCDB_HTTP_HOST, default 127.0.0.1; any other needs a token)")
    .option("--port <port>", "HTTP port (env DOCDB_HTTP_PORT, default 7411)")
    .option("--token <token>", "require Authorization: Bearer <token> (env DOCDB_HTTP_TOKEN)")
    .option("--allow-origin <url>", "also accept browser requests from this origin (repeatable)", collect)
    .option("--db <name>", "database for tool calls without db_name", "vectors")
    .option("--watch", "re-import changed files of enabled collections while serving")
    .option("--debounce <ms>", "with --watch: quiet time before a re-import", "2000")
    .addHelpText(
      "after",
      "\nExamples:\n  docdb serve --data-dir ~/docdb                 # stdio, for agent configs\n  DOCDB_HTTP_TOKEN=secret docdb serve --http --port 7411\n  npx @modelcontextprotocol/inspector docdb serve",
    )
    .action(
      async (
        options: {
          http?: boolean;
          host?: string;
          port?: string;
          token?: string;
          allowOrigin?: string[];
          db: string;
          watch?: boolean;
          debounce: string;
        },
        command: Command,
      ) => {
        try {
          // Loaded here, not at start-up: the other commands never need the MCP SDK (and its schemas).
          const { runServer, withConfigFiles } = await import("@docdb/mcp-server");
          // The server owns the DocDB from here and closes it when it stops.
          const docdb = openFromCommand(command);
          await runServer(
            docdb,
            withConfigFiles(
              {
                http: options.http,
                host: options.host,
                port: options.port,
                token: options.token,
                allowedOrigins: options.allowOrigin,
                defaultDb: options.db,
                watch: options.watch,
                watchDebounceMs: parseInteger(options.debounce, "--debounce"),
              },
              configFromCommand(command),
            ),
          );
        } catch (error) {
          reportError(error);
        }
      },
    );
}
