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
  // Codex refuses an inline bearer_token: it reads the token from bearer_token_env_var (literal headers would go in http_headers).
  entry: (spec) => {
    if (spec.kind === "stdio") return { command: spec.command, args: spec.args };
    const auth = spec.auth;
    if (auth === undefined) return { url: spec.url };
    return auth.kind === "env"
      ? { url: spec.url, bearer_token_env_var: auth.name }
      : { url: spec.url, http_headers: { Authorization: `Bearer ${auth.token}` } };
  },
  tokenFromEnv: ["project", "user"],
  instructions: (scope, ctx) => ({
    file:
      scope === "project" ? join(ctx.project, "AGENTS.md") : join(clientVar(ctx, "CODEX_HOME") ?? join(ctx.home, ".codex"), "AGENTS.md"),
    kind: "block",
  }),
};
