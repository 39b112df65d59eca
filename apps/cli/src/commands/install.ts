import { DocDBError, loadConfig, validateDbName } from "@docdb/core";
import { CONFIG_FLAGS } from "@docdb/mcp-server/flags";
import { Command } from "commander";
import { type GlobalOptions, printJson, reportError, snakeKeys, warn } from "../context.js";
import { CLIENTS, findClient } from "../install/clients.js";
import { type FileChange, installTargets, uninstallTargets } from "../install/engine.js";
import { installContext } from "../install/paths.js";
import { DEFAULT_TOKEN_ENV, type HttpRequest, httpRequest, planFor, stdioSpec } from "../install/plan.js";
import { tokenAdvice } from "../install/secrets.js";
import type { ServerSpec } from "../install/types.js";

const CLIENT_LIST = CLIENTS.map((c) => `${c.id} (${c.label})`).join(", ");

interface InstallOptions {
  scope?: string;
  db?: string;
  http?: string;
  token?: string;
  tokenEnv?: string;
  serverCommand?: string;
  instructions?: boolean;
  dryRun?: boolean;
  json?: boolean;
}

const VERBS: Record<FileChange["action"], string> = {
  created: "created",
  updated: "updated",
  unchanged: "unchanged",
  restored: "restored from backup",
  deleted: "deleted",
  kept: "kept",
  absent: "nothing of docdb in",
};

function printChanges(label: string, scope: string, changes: FileChange[], dryRun: boolean, uninstall: boolean): void {
  const changed = changes.filter((c) => c.action !== "unchanged" && c.action !== "absent" && c.action !== "kept");
  if (changed.length === 0) {
    const what = uninstall ? "docdb is not installed there" : "docdb is already installed";
    process.stdout.write(`${label} (${scope}): ${what}; nothing changed (${changes.map((c) => c.path).join(", ")})\n`);
  }
  for (const c of changes) {
    if (changed.length === 0 && c.action !== "kept") continue;
    const verb = dryRun ? `would be ${VERBS[c.action]}` : VERBS[c.action];
    process.stdout.write(`${label} (${scope}): ${c.path} ${verb}${c.note ? `: ${c.note}` : ""}\n`);
    if (c.backup && !uninstall && !dryRun) process.stdout.write(`  backup of the previous file: ${c.backup}\n`);
    if (c.earlierBackup) process.stdout.write(`  the earlier backup there ${dryRun ? "would be" : "was"} kept as ${c.earlierBackup}\n`);
    if (dryRun && c.diff) process.stdout.write(`${c.diff.replace(/^/gm, "    ")}\n`);
  }
  if (dryRun) process.stdout.write("dry run: nothing was written\n");
  else if (changed.length > 0)
    process.stdout.write(`Restart ${label} (or reload its MCP servers) to ${uninstall ? "drop" : "load"} docdb.\n`);
}

function run(uninstall: boolean) {
  return async (clientName: string, options: InstallOptions, command: Command) => {
    try {
      const client = findClient(clientName);
      const globals = command.optsWithGlobals<GlobalOptions>();
      const ctx = installContext();
      let spec: ServerSpec | undefined;
      let http: HttpRequest | undefined;
      let db: string | undefined;
      if (!uninstall) {
        if ((options.token !== undefined || options.tokenEnv !== undefined) && options.http === undefined) {
          const flag = options.token !== undefined ? "--token" : "--token-env";
          throw new DocDBError("INVALID_REQUEST", `${flag} goes with --http URL (the token of a shared docdb server)`);
        }
        if (options.http !== undefined) {
          if (options.db !== undefined || options.serverCommand !== undefined) {
            throw new DocDBError(
              "INVALID_REQUEST",
              "--db and --server-command are for a server the client starts: a shared --http server has its own",
            );
          }
          http = httpRequest(options.http, options.token, options.tokenEnv);
        } else {
          const config = loadConfig({ env: ctx.env, flags: { dataDir: globals.dataDir }, flagNames: CONFIG_FLAGS });
          db =
            options.db !== undefined ? validateDbName(options.db) : config.settings.db.source !== "default" ? config.values.db : undefined;
          spec = stdioSpec({ dataDir: config.values.dataDir, db, command: options.serverCommand });
        }
      }
      const plan = planFor(client, ctx, { scope: options.scope, spec, http, instructions: options.instructions, db, uninstall });
      const changes = uninstall
        ? uninstallTargets(plan.targets, !!options.dryRun, plan.roots)
        : installTargets(plan.targets, !!options.dryRun);
      const advice = tokenAdvice(client, plan.scope, plan.configFile, plan.spec, http, ctx.env, !!options.dryRun);
      warn(advice.warnings);
      for (const note of advice.notes) process.stderr.write(`note: ${note}\n`);
      if (options.json) {
        return printJson({
          client: client.id,
          scope: plan.scope,
          dry_run: !!options.dryRun,
          changed: changes.some((c) => c.action !== "unchanged" && c.action !== "absent" && c.action !== "kept"),
          ...(plan.entry ? { server: plan.entry } : {}),
          files: snakeKeys(changes),
        });
      }
      printChanges(client.label, plan.scope, changes, !!options.dryRun, uninstall);
    } catch (error) {
      reportError(error);
    }
  };
}

export function installCommand(): Command {
  return new Command("install")
    .description("add docdb to an agent's MCP configuration (merged into its file, with a backup)")
    .argument("<client>", CLIENT_LIST)
    .option("--scope <scope>", "project (the current folder) or user (the home folder); default project where the client has it")
    .option("--db <name>", "database for tool calls without db_name (default: the config file's db, else vectors)")
    .option("--http <url>", "use a shared docdb server (docdb serve --http) at this URL instead of starting one")
    .option(
      "--token <token>",
      "with --http: the server's token (sent as Authorization: Bearer <token>), kept out of the file where the client reads it from --token-env",
    )
    .option("--token-env <name>", `with --http: the environment variable the client reads the token from (default ${DEFAULT_TOKEN_ENV})`)
    .option("--server-command <cmd>", "command the client runs (default: this node and the absolute path of docdb-mcp)")
    .option("--instructions", "also write a short guide for the agent (a Claude Code skill, or a block in AGENTS.md / GEMINI.md)")
    .option("--dry-run", "show the change; write nothing")
    .option("--json", "print JSON")
    .addHelpText(
      "after",
      "\nRunning it again changes nothing; `docdb uninstall <client>` takes out exactly what it added (the\n" +
        "previous bytes come back from <file>.docdb.bak when nothing else changed; an earlier backup there is\n" +
        "kept as <file>.docdb.bak.1, .2, …). A symbolic link is written through (the link stays); a read-only\n" +
        "file is refused, never rewritten. The data folder is\n" +
        "written as an absolute path (--data-dir, else docdb.config.json, DOCDB_DATA_DIR or ./data).\n" +
        `With --token or --token-env, the file names the variable (\${env:DOCDB_HTTP_TOKEN}, \${DOCDB_HTTP_TOKEN},\n` +
        "bearer_token_env_var) rather than holding the token, except ~/.claude.json, which gets the token itself\n" +
        "(with a warning when the file is inside a git work tree).\n\n" +
        "Examples:\n  docdb install claude-code --instructions\n  docdb install cursor --scope user --db notes --dry-run\n" +
        "  docdb install vscode --http http://docs.internal:7411/mcp --token-env DOCDB_HTTP_TOKEN",
    )
    .action(run(false));
}

export function uninstallCommand(): Command {
  return new Command("uninstall")
    .description("remove what `docdb install` added to an agent's configuration (and its instructions)")
    .argument("<client>", CLIENT_LIST)
    .option("--scope <scope>", "project or user, as given to install")
    .option("--dry-run", "show the change; write nothing")
    .option("--json", "print JSON")
    .action(run(true));
}
