import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { DocDBError } from "@docdb/core";
import type { EntryEditor } from "./editor.js";
import { jsonEditor } from "./json-editor.js";
import { appConfigDir } from "./paths.js";
import { blockTarget, configTarget, fileTarget, type Target } from "./targets.js";
import { tomlEditor } from "./toml-editor.js";
import { type ClientDef, type InstallContext, type Scope, SERVER_NAME, type ServerSpec } from "./types.js";

export function pickScope(client: ClientDef, scope: string | undefined): Scope {
  if (scope !== undefined && scope !== "project" && scope !== "user") {
    throw new DocDBError("INVALID_REQUEST", `--scope must be project or user, got "${scope}"`);
  }
  const chosen = (scope as Scope | undefined) ?? (client.scopes.includes("project") ? "project" : "user");
  if (!client.scopes.includes(chosen)) {
    throw new DocDBError(
      "INVALID_REQUEST",
      `${client.label} reads MCP servers only at ${client.scopes.join(" and ")} scope: use --scope ${client.scopes[0]}`,
    );
  }
  return chosen;
}

export function editorFor(client: ClientDef, file: string): EntryEditor {
  if (client.format === "toml") return tomlEditor(file, client.container[0] as string, SERVER_NAME);
  return jsonEditor(file, client.container, SERVER_NAME, client.format === "jsonc");
}

/** The docdb-mcp binary (its launcher, dist/bin.js) of the mcp-server package this CLI uses. */
export function mcpServerBin(): string {
  return join(dirname(createRequire(import.meta.url).resolve("@docdb/mcp-server/package.json")), "dist", "bin.js");
}

/**
 * What the client launches: by default the running node with the absolute path of docdb-mcp
 * (works without anything on PATH, whatever folder the client starts it in); `command` replaces
 * both (e.g. `docdb-mcp` when it is on PATH).
 */
export function stdioSpec(options: { dataDir: string; db?: string; command?: string }): ServerSpec {
  const base = options.command !== undefined ? [] : [mcpServerBin()];
  return {
    kind: "stdio",
    command: options.command ?? process.execPath,
    args: [...base, "--data-dir", options.dataDir, ...(options.db !== undefined ? ["--db", options.db] : [])],
  };
}

export function httpSpec(url: string, token: string | undefined): ServerSpec {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DocDBError("INVALID_REQUEST", `--http must be a URL like http://host:7411/mcp, got "${url}"`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new DocDBError("INVALID_REQUEST", `--http must be an http:// or https:// URL, got "${url}"`);
  }
  if (token !== undefined && (token.trim() === "" || /\s/.test(token))) {
    throw new DocDBError("INVALID_REQUEST", "--token must be a non-empty token without spaces");
  }
  return { kind: "http", url, token };
}

export interface Plan {
  scope: Scope;
  configFile: string;
  entry: Record<string, unknown> | undefined;
  targets: Target[];
  /** Folders below which emptied folders may be removed (and never these). */
  roots: string[];
}

export function planFor(
  client: ClientDef,
  ctx: InstallContext,
  options: { scope?: string; spec?: ServerSpec; instructions?: boolean; db?: string; uninstall?: boolean },
): Plan {
  const scope = pickScope(client, options.scope);
  const configFile = client.configPath(scope, ctx);
  const entry = options.spec ? client.entry(options.spec) : undefined;
  const targets: Target[] = [configTarget(configFile, editorFor(client, configFile), entry)];
  if (options.instructions || options.uninstall) {
    const where = client.instructions?.(scope, ctx);
    if (typeof where === "object")
      targets.push(where.kind === "file" ? fileTarget(where.file, options.db) : blockTarget(where.file, options.db));
    else if (options.instructions) throw new DocDBError("INVALID_REQUEST", where ?? `${client.label} has no instruction file`);
  }
  return { scope, configFile, entry, targets, roots: [ctx.project, ctx.home, appConfigDir(ctx)] };
}
