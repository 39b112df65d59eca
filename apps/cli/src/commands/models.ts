import { checkModelDownloads, listLocalModels, resolveEmbeddingConfig } from "@docdb/core";
import { Command } from "commander";
import { action, embeddingFromFlags, printJson } from "../context.js";
import { printTable } from "./db.js";

const FOLDER_HELP = `A model folder holds config.json, tokenizer.json, tokenizer_config.json and
onnx/model_quantized.onnx (or onnx/model.onnx), as in the Xenova/* repositories on Hugging Face.
DOCDB_MODEL_DIR may point at one such folder, or at a folder of <org>/<name>/ folders.`;

export function modelsCommand(): Command {
  return new Command("models")
    .description("list the local embedding models docdb knows and which are on this machine")
    .option("--json", "print JSON")
    .addHelpText("after", `\n${FOLDER_HELP}`)
    .action(
      action(async (docdb, options: { json?: boolean }, command: Command) => {
        const config = resolveEmbeddingConfig(embeddingFromFlags(command));
        const report = listLocalModels(config);
        // "Downloads on first use" only when the hub answers now (one quick HEAD request, as a first use makes).
        const check = await checkModelDownloads(report, config);
        const model = docdb.embedding;
        const current = model ? { provider: model.provider, model: model.modelId, dimensions: model.dimensions } : null;
        if (options.json) {
          return printJson({
            current,
            model_dir: report.modelDir,
            cache_dir: report.cacheDir,
            allow_download: report.allowDownload,
            download_check: check
              ? { host: check.host, model: check.model, reachable: check.reachable, ...(check.problem ? { problem: check.problem } : {}) }
              : null,
            models: report.models.map((m) => ({
              id: m.id,
              dimensions: m.dimensions,
              languages: m.languages,
              license: m.license,
              prefixes: m.prefixes,
              pooling: m.pooling,
              default: m.isDefault,
              current: m.isCurrent,
              present: m.location !== null,
              path: m.location?.dir ?? null,
              source: m.location?.source ?? null,
            })),
          });
        }
        const missing = !check ? "no" : check.reachable ? "no (downloads on first use)" : "no (hub unreachable)";
        const off = report.modelDir ? " (downloads off while DOCDB_MODEL_DIR is set)" : " (downloads off)";
        process.stdout.write(
          [
            `current embedding model: ${current ? `${current.provider}/${current.model} (${current.dimensions})` : "none (keyword search only)"}`,
            `model folder (DOCDB_MODEL_DIR): ${report.modelDir ?? "-"}`,
            `download cache: ${report.cacheDir}${report.allowDownload ? "" : off}`,
            ...(check
              ? [
                  check.reachable
                    ? `downloads: from ${check.host} (reachable now)`
                    : `downloads: docdb will try ${check.host} on first use, but this machine could not reach it just now (${check.problem})`,
                ]
              : []),
            "",
            "",
          ].join("\n"),
        );
        printTable(
          ["", "MODEL", "DIMS", "LANGUAGES", "LICENSE", "ON THIS MACHINE"],
          report.models.map((m) => [
            m.isCurrent ? "*" : "",
            `${m.id}${m.isDefault ? " (default)" : ""}`,
            String(m.dimensions),
            m.languages,
            m.license,
            m.location ? m.location.dir : missing,
          ]),
        );
        process.stdout.write(`\n${FOLDER_HELP}\n`);
      }),
    );
}
