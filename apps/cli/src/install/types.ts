export type Scope = "project" | "user";

/** Where an install looks: overridable so tests use fixture folders. */
export interface InstallContext {
  /** Home folder: env DOCDB_HOME, else the OS home (HOME). */
  home: string;
  /** Project folder: the current folder. */
  project: string;
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
  /** True when DOCDB_HOME is set: client variables (XDG_CONFIG_HOME, APPDATA, CODEX_HOME…) are then ignored. */
  isolated: boolean;
}

/**
 * How a shared server's bearer token reaches the client: `env`, the file names an environment
 * variable the client reads when it starts (the token stays out of the file); `literal`, the
 * token itself is written (only where the client cannot read a variable).
 */
export type TokenAuth = { kind: "env"; name: string } | { kind: "literal"; token: string };

/** What the client should run or reach. */
export type ServerSpec = { kind: "stdio"; command: string; args: string[] } | { kind: "http"; url: string; auth: TokenAuth | undefined };

/** Where the agent's instructions go: a whole file of ours, or a marked block in a shared file. */
export interface InstructionTarget {
  file: string;
  kind: "file" | "block";
}

export interface ClientDef {
  id: string;
  aliases: string[];
  label: string;
  scopes: Scope[];
  /** Absolute path of the MCP config file for a scope. */
  configPath(scope: Scope, ctx: InstallContext): string;
  format: "json" | "jsonc" | "toml";
  /** The object holding the servers, e.g. ["mcpServers"]. */
  container: string[];
  /** The entry for docdb in this client's format; throws when the client cannot take this kind of server. */
  entry(spec: ServerSpec): Record<string, unknown>;
  /** Scopes whose file can name an environment variable for the token (see TokenAuth); elsewhere the token itself is written. */
  tokenFromEnv: Scope[];
  instructions?(scope: Scope, ctx: InstallContext): InstructionTarget | string;
}

export const SERVER_NAME = "docdb";

/**
 * `headers: { Authorization: "Bearer …" }` for a token, or none; `ref` spells an environment
 * variable in the client's own syntax (`${env:NAME}`, `${NAME}`).
 */
export function bearer(auth: TokenAuth | undefined, ref: (name: string) => string): { headers?: Record<string, string> } {
  if (auth === undefined) return {};
  return { headers: { Authorization: `Bearer ${auth.kind === "env" ? ref(auth.name) : auth.token}` } };
}

/** `${env:NAME}`: Cursor, VS Code and Windsurf. */
export const envColon = (name: string) => `\${env:${name}}`;
/** `${NAME}`: Claude Code's .mcp.json and Gemini CLI's settings.json. */
export const envBrace = (name: string) => `\${${name}}`;
