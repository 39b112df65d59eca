import { type ConfigInput, type ConfigKey, DocDBError, echo, parseProviderName } from "@docdb/core";
import type { ServeOptions } from "./options.js";

/**
 * One command-line flag of a docdb server. `docdb-mcp` (node:util parseArgs) and `docdb serve`
 * (commander) are both built from SERVE_FLAGS, so they accept the same flags with the same words.
 */
export interface ServeFlag {
  /** Long name without dashes, e.g. "data-dir". */
  name: string;
  /** Placeholder of the value, e.g. "dir"; absent for a boolean switch. */
  value?: string;
  description: string;
  multiple?: boolean;
  default?: string;
  /**
   * Global in the `docdb` CLI (given before or after any command); `docdb-mcp` takes it like
   * any other flag.
   */
  global?: boolean;
}

export const SERVE_FLAGS: readonly ServeFlag[] = [
  {
    name: "data-dir",
    value: "dir",
    description: "folder holding the SQLite databases (docdb.config.json dataDir, env DOCDB_DATA_DIR, default ./data)",
    global: true,
  },
  {
    name: "store",
    value: "url",
    description:
      "a postgres://user:pass@host:5432/db URL to keep the databases on PostgreSQL (docdb.config.json store, env DOCDB_STORE_URL)",
    global: true,
  },
  {
    name: "embedding",
    value: "provider",
    description: "local, openai, ollama or none (env DOCDB_EMBEDDING; default openai with OPENAI_API_KEY, else local)",
    global: true,
  },
  { name: "embedding-model", value: "id", description: "model for that provider (env DOCDB_EMBEDDING_MODEL)", global: true },
  { name: "model-dir", value: "dir", description: "local model folder (env DOCDB_MODEL_DIR)", global: true },
  { name: "db", value: "name", description: "database for tool calls without db_name (docdb.config.json db, default vectors)" },
  { name: "http", description: "serve Streamable HTTP on /mcp instead of stdio" },
  { name: "host", value: "host", description: "HTTP host (env DOCDB_HTTP_HOST, default 127.0.0.1; any other needs a token)" },
  { name: "port", value: "port", description: "HTTP port (env DOCDB_HTTP_PORT, default 7411)" },
  { name: "token", value: "token", description: "require Authorization: Bearer <token> (env DOCDB_HTTP_TOKEN)" },
  {
    name: "oauth-issuer",
    value: "url",
    description: "accept OAuth access tokens (JWTs) of this authorization server (env DOCDB_OAUTH_ISSUER)",
  },
  { name: "oauth-audience", value: "url", description: "this server's resource URL, the tokens' aud (env DOCDB_OAUTH_AUDIENCE)" },
  { name: "oauth-jwks", value: "url", description: "the issuer's JWKS (env DOCDB_OAUTH_JWKS_URL; default from its metadata)" },
  {
    name: "allow-origin",
    value: "url",
    description: "also accept browser requests from this origin (repeatable; env DOCDB_HTTP_ALLOWED_ORIGINS, comma-separated)",
    multiple: true,
  },
  { name: "watch", description: "re-import changed files of enabled collections while serving" },
  {
    name: "allow-fetch",
    description: "let the insert_url tool fetch web pages (env DOCDB_MCP_ALLOW_FETCH=1; default off), never private addresses",
  },
  {
    name: "allow-private-fetch",
    description: "with --allow-fetch: also loopback, link-local and private addresses (env DOCDB_MCP_FETCH_PRIVATE=1; default off)",
  },
  { name: "debounce", value: "ms", description: "with --watch: quiet time before a re-import", default: "2000" },
];

/** The flag that sets each configuration key, in both programs (for loadConfig's messages and `docdb config`). */
export const CONFIG_FLAGS: Record<ConfigKey, string> = {
  dataDir: "--data-dir",
  store: "--store",
  db: "--db",
  "embedding.provider": "--embedding",
  "embedding.model": "--embedding-model",
  "embedding.modelDir": "--model-dir",
  chunkSize: "--chunk-size",
  chunkOverlap: "--chunk-overlap",
  topK: "--top-k",
  "http.host": "--host",
  "http.port": "--port",
  "http.token": "--token",
};

/** The flags' help lines, aligned, for a usage text. */
export function serveFlagsHelp(flags: readonly ServeFlag[] = SERVE_FLAGS): string {
  const left = flags.map((f) => `--${f.name}${f.value ? ` <${f.value}>` : ""}`);
  const width = Math.max(...left.map((l) => l.length)) + 2;
  return flags
    .map((f, i) => `  ${(left[i] as string).padEnd(width)}${f.description}${f.default !== undefined ? ` (default ${f.default})` : ""}`)
    .join("\n");
}

/** The flags as node:util parseArgs options. */
export function parseArgsOptions(): Record<string, { type: "string" | "boolean"; multiple?: boolean }> {
  return Object.fromEntries(
    SERVE_FLAGS.map((f) => [f.name, { type: f.value ? "string" : "boolean", ...(f.multiple ? { multiple: true } : {}) }] as const),
  );
}

function whole(value: string, flag: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isInteger(n) || n < 0)
    throw new DocDBError("INVALID_REQUEST", `${flag} must be a whole number, got "${echo(value)}"`);
  return n;
}

/**
 * What flag values mean, for both servers: `get` reads a flag by its long name (undefined when
 * not given). Returns the settings for loadConfig and the serve options (before config files).
 */
export function fromServeFlags(get: (name: string) => unknown): { config: ConfigInput; serve: ServeOptions } {
  const str = (name: string) => get(name) as string | undefined;
  const embedding = str("embedding");
  const debounce = str("debounce");
  return {
    config: {
      dataDir: str("data-dir"),
      store: str("store"),
      embedding: {
        provider: embedding !== undefined ? parseProviderName(embedding, "--embedding") : undefined,
        model: str("embedding-model"),
        modelDir: str("model-dir"),
      },
    },
    serve: {
      http: get("http") as boolean | undefined,
      host: str("host"),
      port: str("port"),
      token: str("token"),
      oauthIssuer: str("oauth-issuer"),
      oauthAudience: str("oauth-audience"),
      oauthJwks: str("oauth-jwks"),
      allowedOrigins: get("allow-origin") as string[] | undefined,
      defaultDb: str("db"),
      watch: get("watch") as boolean | undefined,
      watchDebounceMs: whole(debounce ?? "2000", "--debounce"),
      allowFetch: get("allow-fetch") as boolean | undefined,
      allowPrivateFetch: get("allow-private-fetch") as boolean | undefined,
    },
  };
}
