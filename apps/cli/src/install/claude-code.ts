import { join } from "node:path";
import { clientVar } from "./paths.js";
import { bearer, type ClientDef, envBrace } from "./types.js";

/** Claude Code: `.mcp.json` in the project, `~/.claude.json` for the user; both under `mcpServers`. */
export const claudeCode: ClientDef = {
  id: "claude-code",
  aliases: ["claude"],
  label: "Claude Code",
  scopes: ["project", "user"],
  configPath: (scope, ctx) =>
    scope === "project" ? join(ctx.project, ".mcp.json") : join(clientVar(ctx, "CLAUDE_CONFIG_DIR") ?? ctx.home, ".claude.json"),
  format: "json",
  container: ["mcpServers"],
  entry: (spec) =>
    spec.kind === "stdio"
      ? { type: "stdio", command: spec.command, args: spec.args, env: {} }
      : { type: "http", url: spec.url, ...bearer(spec.auth, envBrace) },
  // .mcp.json expands ${VAR} in headers (documented); ~/.claude.json is not documented to, so it gets the token itself.
  tokenFromEnv: ["project"],
  // A skill: Claude Code loads its description always and the body when the task fits.
  instructions: (scope, ctx) => ({
    file: join(scope === "project" ? ctx.project : ctx.home, ".claude", "skills", "docdb", "SKILL.md"),
    kind: "file",
  }),
};
