// `docdb token create|list|revoke`: scoped bearer tokens for `docdb serve --http` (only a hash is kept).
import { type AccessLevel, DocDBError, type TokenInfo, validateDbName } from "@docdb/core";
import { Command } from "commander";
import { cliActor } from "../cli-audit.js";
import { action, printJson } from "../context.js";
import { printTable } from "./db.js";

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** "30d", "12h", "90m", "2w" → milliseconds. */
export function parseDuration(value: string, flag: string): number {
  const match = /^(\d+)\s*([mhdw])$/.exec(value.trim());
  if (!match) throw new DocDBError("INVALID_REQUEST", `${flag} takes a number and a unit m, h, d or w (like 30d or 12h), got "${value}"`);
  const ms = Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  if (ms <= 0) throw new DocDBError("INVALID_REQUEST", `${flag} must be more than 0`);
  return ms;
}

/** "120/min", "2/s", "600/h" or a bare number (per minute) → requests per minute. */
export function parseRate(value: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(?:\/\s*(s|sec|min|m|h|hour))?$/.exec(value.trim());
  if (!match) throw new DocDBError("INVALID_REQUEST", `--rate takes requests per minute like 120/min (or N/s, N/h), got "${value}"`);
  const n = Number(match[1]);
  const unit = match[2] ?? "min";
  const perMinute = unit.startsWith("s") ? n * 60 : unit.startsWith("h") ? n / 60 : n;
  if (!(perMinute > 0)) throw new DocDBError("INVALID_REQUEST", "--rate must be more than 0");
  return perMinute;
}

function parseBytes(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new DocDBError("INVALID_REQUEST", `--max-body takes a whole number of bytes, got "${value}"`);
  return n;
}

function describe(info: TokenInfo): string[] {
  return [
    info.name,
    info.access,
    info.databases === "*" ? "*" : info.databases.join(","),
    info.state,
    info.expires_at ?? "-",
    [
      info.limits.requestsPerMinute ? `${info.limits.requestsPerMinute}/min` : "",
      info.limits.maxBodyBytes ? `${info.limits.maxBodyBytes} B` : "",
    ]
      .filter(Boolean)
      .join(" ") || "-",
  ];
}

interface CreateOptions {
  name: string;
  db?: string[];
  readOnly?: boolean;
  access?: string;
  expires?: string;
  rate?: string;
  maxBody?: string;
  json?: boolean;
}

export function tokenCommand(): Command {
  const token = new Command("token").description("scoped bearer tokens for `docdb serve --http` (only a hash of each is stored)");
  token
    .command("create")
    .description("make a token and print it once")
    .requiredOption("--name <name>", "a unique name; recorded in the audit trail")
    .option("--db <name...>", "databases it may see (repeat; default all)")
    .option("--read-only", "read access only (same as --access read)")
    .option("--access <level>", "read, write or admin (drop databases, SQL, tokens)", "write")
    .option("--expires <duration>", "lifetime like 30d, 12h, 90m or 2w (default: never)")
    .option("--rate <n/min>", "requests per minute (429 with Retry-After above it)")
    .option("--max-body <bytes>", "largest request body (413 above it)")
    .option("--json", "print JSON")
    .action(
      action(async (docdb, options: CreateOptions) => {
        const access = (options.readOnly ? "read" : options.access) as AccessLevel;
        if (!["read", "write", "admin"].includes(access)) {
          throw new DocDBError("INVALID_REQUEST", `--access takes read, write or admin, got "${options.access}"`);
        }
        if (options.readOnly && options.access !== "write" && options.access !== "read") {
          throw new DocDBError("INVALID_REQUEST", "--read-only and --access disagree: pass one of them");
        }
        const databases = options.db?.map((name) => validateDbName(name));
        const result = await docdb.access().createToken(
          {
            name: options.name,
            access,
            databases: databases && databases.length > 0 ? databases : "*",
            ...(options.expires ? { expiresInMs: parseDuration(options.expires, "--expires") } : {}),
            limits: {
              ...(options.rate ? { requestsPerMinute: parseRate(options.rate) } : {}),
              ...(options.maxBody ? { maxBodyBytes: parseBytes(options.maxBody) } : {}),
            },
          },
          cliActor(),
        );
        if (options.json) return printJson({ token: result.token, ...result.info });
        process.stdout.write(`${result.token}\n`);
        process.stderr.write(
          `token "${result.info.name}" (${result.info.access} on ${result.info.databases === "*" ? "all databases" : result.info.databases.join(", ")}): ` +
            "copy it now, docdb keeps only its hash. Send it as Authorization: Bearer <token>.\n",
        );
      }),
    );
  token
    .command("list")
    .alias("ls")
    .description("list tokens (never the tokens themselves)")
    .option("--json", "print JSON")
    .action(
      action(async (docdb, options: { json?: boolean }) => {
        const tokens = await docdb.access().listTokens();
        if (options.json) return printJson(tokens);
        if (tokens.length === 0) return void process.stdout.write("no tokens: make one with `docdb token create --name NAME`\n");
        printTable(["NAME", "ACCESS", "DATABASES", "STATE", "EXPIRES", "LIMITS"], tokens.map(describe));
      }),
    );
  token
    .command("revoke")
    .description("revoke a token at once (every server process refuses it from its next request)")
    .argument("<name>")
    .option("--json", "print JSON")
    .action(
      action(async (docdb, name: string, options: { json?: boolean }) => {
        await docdb.access().revokeToken(name, cliActor());
        if (options.json) printJson({ revoked: name });
        else process.stdout.write(`revoked ${name}\n`);
      }),
    );
  return token;
}
