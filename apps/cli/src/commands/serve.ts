import { fromServeFlags, SERVE_FLAGS } from "@docdb/mcp-server/flags";
import { Command } from "commander";
import { configFromCommand, openFromCommand, reportError } from "../context.js";

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Commander's property name for a long flag ("allow-origin" → "allowOrigin"). */
function camel(name: string): string {
  return name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

export function serveCommand(): Command {
  const command = new Command("serve").description(
    "serve docdb to AI agents over MCP (stdio by default, Streamable HTTP with --http); the same flags as docdb-mcp",
  );
  // One definition with docdb-mcp; the global ones (--data-dir, --embedding, …) are the program's.
  for (const flag of SERVE_FLAGS.filter((f) => !f.global)) {
    const spec = `--${flag.name}${flag.value ? ` <${flag.value}>` : ""}`;
    if (flag.multiple) command.option(spec, flag.description, collect);
    else if (flag.default !== undefined) command.option(spec, flag.description, flag.default);
    else command.option(spec, flag.description);
  }
  return command
    .addHelpText(
      "after",
      "\nPending embeddings are embedded in the background while the server runs.\n\nExamples:\n  docdb serve --data-dir ~/docdb                 # stdio, for agent configs\n  DOCDB_HTTP_TOKEN=secret docdb serve --http --port 7411\n  npx @modelcontextprotocol/inspector docdb serve",
    )
    .action(async (options: Record<string, unknown>, command: Command) => {
      try {
        const globals = command.optsWithGlobals<Record<string, unknown>>();
        const flags = fromServeFlags((name) => {
          const key = camel(name);
          // A --db left at nothing takes the configured one (withConfigFiles), then "vectors".
          return SERVE_FLAGS.find((f) => f.name === name)?.global ? globals[key] : options[key];
        });
        // Loaded only here: every other command starts without the MCP SDK.
        const { runServer, toolDescriptorsBeside, withConfigFiles } = await import("@docdb/mcp-server/serve");
        // The server owns the DocDB from here and closes it when it stops.
        const docdb = openFromCommand(command);
        const config = configFromCommand(command);
        const toolDescriptors = toolDescriptorsBeside(import.meta.url);
        await runServer(
          docdb,
          withConfigFiles({ ...flags.serve, defaultDb: flags.serve.defaultDb ?? config.values.db, toolDescriptors }, config),
        );
      } catch (error) {
        reportError(error);
      }
    });
}
