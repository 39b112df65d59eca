import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { DocDBError, echo } from "@docdb/core";
import type { EntryEditor } from "./editor.js";
import { jsonEditor } from "./json-editor.js";
import { appConfigDir } from "./paths.js";
import { blockTarget, configTarget, fileTarget, type Target } from "./targets.js";
import { tomlEditor } from "./toml-editor.js";
import { type ClientDef, type InstallContext, type Scope, SERVER_NAME, type ServerSpec } from "./types.js";

type ProcessEnv = Record<string, string | undefined>;

export function pickScope(client: ClientDef, scope: string | undefined): Scope {
  if (scope !== undefined && scope !== "project" && scope !== "user") {
    throw new DocDBError("INVALID_REQUEST", `--scope must be project or user, got "${echo(scope)}"`);
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

/** A shared server (`--http`) and how its token is given: the variable to name, and the token itself when given. */
export interface HttpRequest {
  url: string;
  token?: { env: string; value?: string };
}

export const DEFAULT_TOKEN_ENV = "DOCDB_HTTP_TOKEN";

function checkToken(token: string, where: string): string {
  if (token.trim() === "" || /\s/.test(token)) throw new DocDBError("INVALID_REQUEST", `${where} must be a non-empty token without spaces`);
  return token;
}

export function httpRequest(url: string, token: string | undefined, tokenEnv: string | undefined): HttpRequest {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DocDBError("INVALID_REQUEST", `--http must be a URL like http://host:7411/mcp, got "${echo(url)}"`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new DocDBError("INVALID_REQUEST", `--http must be an http:// or https:// URL, got "${echo(url)}"`);
  }
  if (token !== undefined) checkToken(token, "--token");
  if (tokenEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv)) {
    throw new DocDBError(
      "INVALID_REQUEST",
      `--token-env must be an environment variable name like ${DEFAULT_TOKEN_ENV}, got "${tokenEnv}"`,
    );
  }
  if (token === undefined && tokenEnv === undefined) return { url };
  return { url, token: { env: tokenEnv ?? DEFAULT_TOKEN_ENV, ...(token !== undefined ? { value: token } : {}) } };
}

/**
 * The server entry's spec for a client at a scope: where its file can name an environment
 * variable, the token stays out of the file; elsewhere the token itself (--token, else the
 * variable's value now) is written.
 */
export function httpSpec(client: ClientDef, scope: Scope, file: string, request: HttpRequest, env: ProcessEnv): ServerSpec {
  const token = request.token;
  if (token === undefined) return { kind: "http", url: request.url, auth: undefined };
  if (client.tokenFromEnv.includes(scope)) return { kind: "http", url: request.url, auth: { kind: "env", name: token.env } };
  const value = token.value ?? env[token.env];
  if (value === undefined || value === "") {
    client.entry({ kind: "http", url: request.url, auth: undefined }); // a client that takes no remote server says so first
    throw new DocDBError(
      "INVALID_REQUEST",
      `${client.label} does not read environment variables in ${file}: give the token with --token (it is written into that file), or set ${token.env}`,
    );
  }
  return {
    kind: "http",
    url: request.url,
    auth: { kind: "literal", token: checkToken(value, token.value !== undefined ? "--token" : token.env) },
  };
}

export interface Plan {
  scope: Scope;
  configFile: string;
  entry: Record<string, unknown> | undefined;
  /** The server the entry points at (undefined for uninstall). */
  spec: ServerSpec | undefined;
  targets: Target[];
  /** Folders below which emptied folders may be removed (and never these). */
  roots: string[];
}

export function planFor(
  client: ClientDef,
  ctx: InstallContext,
  options: { scope?: string; spec?: ServerSpec; http?: HttpRequest; instructions?: boolean; db?: string; uninstall?: boolean },
): Plan {
  const scope = pickScope(client, options.scope);
  const configFile = client.configPath(scope, ctx);
  const spec = options.http ? httpSpec(client, scope, configFile, options.http, ctx.env) : options.spec;
  const entry = spec ? client.entry(spec) : undefined;
  const targets: Target[] = [configTarget(configFile, editorFor(client, configFile), entry)];
  if (options.instructions || options.uninstall) {
    const where = client.instructions?.(scope, ctx);
    if (typeof where === "object")
      targets.push(where.kind === "file" ? fileTarget(where.file, options.db) : blockTarget(where.file, options.db));
    else if (options.instructions) throw new DocDBError("INVALID_REQUEST", where ?? `${client.label} has no instruction file`);
  }
  return { scope, configFile, entry, spec, targets, roots: [ctx.project, ctx.home, appConfigDir(ctx)] };
}
