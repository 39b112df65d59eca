import { join } from "node:path";
import { bearer, type ClientDef, envColon } from "./types.js";

/** Cursor: `.cursor/mcp.json` in the project or the home folder, under `mcpServers`. */
export const cursor: ClientDef = {
  id: "cursor",
  aliases: [],
  label: "Cursor",
  scopes: ["project", "user"],
  configPath: (scope, ctx) => join(scope === "project" ? ctx.project : ctx.home, ".cursor", "mcp.json"),
  format: "json",
  container: ["mcpServers"],
  entry: (spec) => (spec.kind === "stdio" ? { command: spec.command, args: spec.args } : { url: spec.url, ...bearer(spec.auth, envColon) }),
  // mcp.json interpolates ${env:NAME} in url and headers.
  tokenFromEnv: ["project", "user"],
  instructions: (scope, ctx) =>
    scope === "project"
      ? { file: join(ctx.project, "AGENTS.md"), kind: "block" }
      : "Cursor keeps user rules in its settings, not a file: use --scope project for AGENTS.md",
};
