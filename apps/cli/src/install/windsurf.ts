import { join } from "node:path";
import { bearer, type ClientDef, envColon } from "./types.js";

/** Windsurf: `~/.codeium/windsurf/mcp_config.json` (user scope only), under `mcpServers`; remote servers use `serverUrl`. */
export const windsurf: ClientDef = {
  id: "windsurf",
  aliases: [],
  label: "Windsurf",
  scopes: ["user"],
  // MCP servers are user-level only; --instructions can still target the project.
  configPath: (_scope, ctx) => join(ctx.home, ".codeium", "windsurf", "mcp_config.json"),
  format: "json",
  container: ["mcpServers"],
  entry: (spec) =>
    spec.kind === "stdio" ? { command: spec.command, args: spec.args } : { serverUrl: spec.url, ...bearer(spec.auth, envColon) },
  // mcp_config.json interpolates ${env:NAME} in serverUrl and headers.
  tokenFromEnv: ["user"],
  // Project: AGENTS.md (Windsurf reads it); user: Windsurf's global rules file.
  instructions: (scope, ctx) => ({
    file: scope === "project" ? join(ctx.project, "AGENTS.md") : join(ctx.home, ".codeium", "windsurf", "memories", "global_rules.md"),
    kind: "block",
  }),
};
