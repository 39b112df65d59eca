import { CONFIG_KEYS, type ConfigSetting, redactUrl } from "@docdb/core";
import { Command } from "commander";
import { configFromCommand, printJson, reportError } from "../context.js";

function shown(key: string, setting: ConfigSetting, secrets: boolean): ConfigSetting {
  if (secrets || setting.value === undefined) return setting;
  if (key === "http.token") return { ...setting, value: "***" };
  // A PostgreSQL URL may carry a password: never printed unless asked.
  if (key === "store" && typeof setting.value === "string") return { ...setting, value: redactUrl(setting.value) };
  return setting;
}

export function configCommand(): Command {
  return new Command("config")
    .description("print the effective settings and where each comes from (flag, file, environment, default)")
    .option("--show-secrets", "print the HTTP token and the store URL's password instead of ***")
    .option("--json", "print JSON")
    .addHelpText(
      "after",
      "\nFiles: docdb.config.json in the current folder or the nearest one above it, then the user file\n" +
        "($XDG_CONFIG_HOME/docdb/config.json or ~/.config/docdb/config.json). Flags > project file > user file >\n" +
        'environment > defaults. Keys: dataDir, store, db, embedding {provider, model, modelDir}, chunkSize,\nchunkOverlap, topK, http {host, port, token}; relative paths are relative to the file.\n\nExample docdb.config.json:\n  { "dataDir": "./.docdb", "db": "notes", "embedding": { "provider": "local" }, "topK": 5 }',
    )
    .action((options: { json?: boolean; showSecrets?: boolean }, command: Command) => {
      try {
        const config = configFromCommand(command);
        const settings = Object.fromEntries(CONFIG_KEYS.map((key) => [key, shown(key, config.settings[key], !!options.showSecrets)]));
        if (options.json) return printJson({ files: config.files, settings });
        process.stdout.write(`project file: ${config.files.project ?? "(none)"}\nuser file:    ${config.files.user ?? "(none)"}\n\n`);
        for (const [key, s] of Object.entries(settings)) {
          const origin = s.source === "default" ? `default${s.from ? ` (${s.from})` : ""}` : `${s.source} ${s.from}`;
          process.stdout.write(`${key.padEnd(20)} ${String(s.value ?? "-").padEnd(40)} ${origin}\n`);
        }
      } catch (error) {
        reportError(error);
      }
    });
}
