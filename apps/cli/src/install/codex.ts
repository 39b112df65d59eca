import { join } from "node:path";
import { clientVar } from "./paths.js";
import type { ClientDef } from "./types.js";

/** Codex CLI: `[mcp_servers.docdb]` in `~/.codex/config.toml` (CODEX_HOME) or a trusted project's `.codex/config.toml`. */
export const codex: ClientDef = {
  id: "codex",
  aliases: ["codex-cli"],
  label: "Codex CLI",
  scopes: ["project", "user"],
  configPath: (scope, ctx) =>
    scope === "project"
      ? join(ctx.project, ".codex", "config.toml")
      : join(clientVar(ctx, "CODEX_HOME") ?? join(ctx.home, ".codex"), "config.toml"),
  format: "toml",
  container: ["mcp_servers"],
  // Codex refuses an inline bearer_token; literal headers go in http_headers.
  entry: (spec) =>
    spec.kind === "stdio"
      ? { command: spec.command, args: spec.args }
      : { url: spec.url, ...(spec.token !== undefined ? { http_headers: { Authorization: `Bearer ${spec.token}` } } : {}) },
  instructions: (scope, ctx) => ({
    file:
      scope === "project" ? join(ctx.project, "AGENTS.md") : join(clientVar(ctx, "CODEX_HOME") ?? join(ctx.home, ".codex"), "AGENTS.md"),
    kind: "block",
  }),
};
