// `docdb ui`: serves the web page (search, browse, tend, memory) and its API on loopback, and
// optionally opens it in the browser. Stops on SIGINT/SIGTERM.
import { spawn } from "node:child_process";
import { Command } from "commander";
import { configFromCommand, openFromCommand, parseInteger, reportError } from "../context.js";

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Opens `url` in the desktop's browser; a failure only prints the URL again. */
function openBrowser(url: string): void {
  const [command, args] =
    process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["cmd", ["/c", "start", "", url]]
        : ["xdg-open", [url]];
  try {
    const child = spawn(command, args, { stdio: "ignore", detached: true });
    child.on("error", () => process.stderr.write(`could not open a browser: open ${url} yourself\n`));
    child.unref();
  } catch {
    process.stderr.write(`could not open a browser: open ${url} yourself\n`);
  }
}

export function uiCommand(): Command {
  return new Command("ui")
    .description("serve docdb's web page to search, browse and tend your databases (http://127.0.0.1:7412/ui/ by default)")
    .option("--port <port>", "port (0 picks a free one)", "7412")
    .option("--host <host>", "host to listen on (any other than loopback needs --token)", "127.0.0.1")
    .option("--token <token>", "require this bearer token for the page's API (env DOCDB_HTTP_TOKEN)")
    .option("--allow-origin <origin>", "another browser origin allowed to call the API (repeatable)", collect)
    .option("--open", "open the page in the browser")
    .addHelpText("after", "\nExamples:\n  docdb ui --open\n  DOCDB_HTTP_TOKEN=secret docdb ui --host 0.0.0.0 --port 8080")
    .action(async (options: { port: string; host: string; token?: string; allowOrigin?: string[]; open?: boolean }, command: Command) => {
      try {
        const config = configFromCommand(command);
        const { serveUi } = await import("@docdb/mcp-server/ui");
        const docdb = openFromCommand(command);
        const token = options.token ?? config.values.http.token;
        const handle = await serveUi({
          docdb,
          host: options.host,
          port: parseInteger(options.port, "--port"),
          token,
          allowedOrigins: options.allowOrigin,
        });
        process.stderr.write(`docdb page at ${handle.url} (store ${await docdb.location()}${token ? ", bearer token required" : ""})\n`);
        if (options.open) openBrowser(handle.url);
        await new Promise<void>((resolve) => {
          process.once("SIGINT", resolve);
          process.once("SIGTERM", resolve);
        });
        await handle.close();
        await docdb.close();
      } catch (error) {
        reportError(error);
      }
    });
}
