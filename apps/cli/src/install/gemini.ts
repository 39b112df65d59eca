import { join } from "node:path";
import { bearer, type ClientDef, envBrace } from "./types.js";

/** Gemini CLI: `.gemini/settings.json` in the project or the home folder, under `mcpServers`; Streamable HTTP uses `httpUrl`. */
export const gemini: ClientDef = {
  id: "gemini",
  aliases: ["gemini-cli"],
  label: "Gemini CLI",
  scopes: ["project", "user"],
  configPath: (scope, ctx) => join(scope === "project" ? ctx.project : ctx.home, ".gemini", "settings.json"),
  format: "json",
  container: ["mcpServers"],
  entry: (spec) =>
    spec.kind === "stdio" ? { command: spec.command, args: spec.args } : { httpUrl: spec.url, ...bearer(spec.auth, envBrace) },
  // settings.json resolves $VAR and ${VAR} in its string values.
  tokenFromEnv: ["project", "user"],
  instructions: (scope, ctx) => ({
    file: scope === "project" ? join(ctx.project, "GEMINI.md") : join(ctx.home, ".gemini", "GEMINI.md"),
    kind: "block",
  }),
};
