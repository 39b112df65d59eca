import { join } from "node:path";
import { appConfigDir } from "./paths.js";
import { bearer, type ClientDef, envColon } from "./types.js";

/** VS Code: `.vscode/mcp.json` in the project, `mcp.json` in the user profile; under `servers`, with a `type`. JSONC. */
export const vscode: ClientDef = {
  id: "vscode",
  aliases: ["code", "vs-code"],
  label: "VS Code",
  scopes: ["project", "user"],
  configPath: (scope, ctx) =>
    scope === "project" ? join(ctx.project, ".vscode", "mcp.json") : join(appConfigDir(ctx), "Code", "User", "mcp.json"),
  format: "jsonc",
  container: ["servers"],
  entry: (spec) =>
    spec.kind === "stdio"
      ? { type: "stdio", command: spec.command, args: spec.args }
      : { type: "http", url: spec.url, ...bearer(spec.auth, envColon) },
  // mcp.json resolves VS Code's variables, ${env:NAME} among them.
  tokenFromEnv: ["project", "user"],
  instructions: (scope, ctx) =>
    scope === "project"
      ? { file: join(ctx.project, "AGENTS.md"), kind: "block" }
      : "VS Code has no user-level instruction file docdb writes: use --scope project for AGENTS.md",
};
