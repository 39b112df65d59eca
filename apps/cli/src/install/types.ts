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

/** What the client should run or reach. */
export type ServerSpec = { kind: "stdio"; command: string; args: string[] } | { kind: "http"; url: string; token: string | undefined };

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
  instructions?(scope: Scope, ctx: InstallContext): InstructionTarget | string;
}

export const SERVER_NAME = "docdb";

export function bearer(token: string | undefined): { headers?: Record<string, string> } {
  return token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } };
}
