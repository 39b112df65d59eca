import { join } from "node:path";
import { DocDBError } from "@docdb/core";
import { appConfigDir } from "./paths.js";
import type { ClientDef } from "./types.js";

/** Claude Desktop: `claude_desktop_config.json` in the OS settings folder, user scope only, local servers only. */
export const claudeDesktop: ClientDef = {
  id: "claude-desktop",
  aliases: [],
  label: "Claude Desktop",
  scopes: ["user"],
  configPath: (_scope, ctx) => join(appConfigDir(ctx), "Claude", "claude_desktop_config.json"),
  format: "json",
  container: ["mcpServers"],
  entry: (spec) => {
    if (spec.kind === "http") {
      throw new DocDBError(
        "INVALID_REQUEST",
        "Claude Desktop does not read remote servers from claude_desktop_config.json: add the URL under Settings → Connectors, or install without --http to run docdb locally",
      );
    }
    return { command: spec.command, args: spec.args };
  },
  tokenFromEnv: [],
  instructions: () => "Claude Desktop has no instruction file: leave out --instructions",
};
