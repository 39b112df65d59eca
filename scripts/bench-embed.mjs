#!/usr/bin/env node
// Throughput of the local embedding provider in texts/s by batch size (texts per forward pass),
// on the generated tiny model, on a generated model with multilingual-e5-small's shape and,
// when DOCDB_MODEL_DIR points at a real model, on that one too.
//
//   pnpm build && pnpm bench:embed [--texts N] [--batches 1,4,16] [--threads N] [--rounds 2] [--tiny-only] [--json]
//
// Texts are Japanese, English and code from a fixed seed, so runs compare: three classes of
// one length each (30, 150, 600 characters) and a mixed class (50-700, like real chunks). Texts
// go to the provider in calls of 64, as embedMany and `docdb embed --pending` send them; the
// provider sorts each call by length and cuts it into passes of the batch size. The "default"
// column is the provider's own passes: up to 16 texts and about 2,048 characters with padding.

import { availableParallelism, cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { makeTinyModel } from "./make-tiny-model.mjs";

const embedDist = new URL("../packages/embed/dist/index.js", import.meta.url);
const { LocalEmbeddingModel } = await import(embedDist.href).catch(() => {
  process.stderr.write(`bench-embed: ${fileURLToPath(embedDist)} is missing; run \`pnpm build\` first\n`);
  process.exit(1);
});

function parseArgs(argv) {
  const options = { batches: [1, 4, 16], texts: undefined, threads: undefined, rounds: 2, json: false, tinyOnly: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--json") options.json = true;
    else if (arg === "--tiny-only") options.tinyOnly = true;
    else if (arg === "--texts") options.texts = Number(argv[++i]);
    else if (arg === "--threads") options.threads = Number(argv[++i]);
    else if (arg === "--rounds") options.rounds = Number(argv[++i]);
    else if (arg === "--batches") options.batches = String(argv[++i]).split(",").map(Number);
    else throw new Error(`unknown option ${arg}`);
  }
  for (const n of [...options.batches, options.texts ?? 1, options.threads ?? 1, options.rounds]) {
    if (!Number.isInteger(n) || n < 1) throw new Error("--texts, --threads, --rounds and --batches take positive whole numbers");
  }
  return options;
}

const SENTENCES = [
  "東京は日本の首都で、人口は約1400万人です。",
  "京都には千年以上の歴史があり、多くの寺院や神社が残っています。",
  "この関数は入力された文字列を正規化してから検索インデックスに追加します。",
  "ベクトル検索は意味の近い文章を見つけ、キーワード検索は正確な語句を見つけます。",
  "The local provider runs an ONNX model on the CPU, so documents never leave the machine.",
  "Chunks of about seven hundred characters keep enough context for a passage to answer a question.",
  "Hybrid search fuses keyword and vector rankings with reciprocal rank fusion.",
  "export function normalize(text: string): string { return text.normalize('NFKC').toLowerCase(); }",
  "for (const chunk of chunks) { await store.writeVectors([{ seq: chunk.seq, vector }]); }",
  "SELECT rowid, distance FROM chunks_vec WHERE embedding MATCH ? AND k = 10 ORDER BY distance;",
];

/** `count` texts of `min`-`max` characters, from a fixed seed. */
function corpus(count, min, max, seed = 11) {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
  return Array.from({ length: count }, () => {
    const target = min + Math.floor(next() * (max - min + 1));
    let text = "";
    while (text.length < target) text += `${SENTENCES[Math.floor(next() * SENTENCES.length)]} `;
    return text.slice(0, target);
  });
}

const CLASSES = [
  { name: "30 chars", min: 30, max: 30 },
  { name: "150 chars", min: 150, max: 150 },
  { name: "600 chars", min: 600, max: 600 },
  { name: "mixed 50-700", min: 50, max: 700 },
];

/** Best-of-rounds texts/s (wall clock and CPU time) for `texts` in calls of 64, passes of `passSize`. */
async function measure(modelOptions, options, texts, passSize) {
  // A fixed batch size ignores the provider's characters-per-pass cap; "default" keeps both defaults.
  const pass = passSize === "default" ? {} : { passSize, passChars: Number.POSITIVE_INFINITY };
  const model = new LocalEmbeddingModel({ ...modelOptions, idleUnloadMs: 0, allowDownload: false, threads: options.threads, ...pass });
  await model.embed(texts.slice(0, 64), { kind: "document" }); // load + warm up
  // Best of several rounds: on a shared machine the slower rounds measure the neighbours. CPU
  // time is reported too; it moves much less than wall time when other work shares the cores.
  let seconds = Number.POSITIVE_INFINITY;
  let cpuSeconds = Number.POSITIVE_INFINITY;
  for (let round = 0; round < options.rounds; round++) {
    const begin = performance.now();
    const cpuBegin = process.cpuUsage();
    for (let i = 0; i < texts.length; i += 64) await model.embed(texts.slice(i, i + 64), { kind: "document" });
    const cpu = process.cpuUsage(cpuBegin);
    seconds = Math.min(seconds, (performance.now() - begin) / 1000);
    cpuSeconds = Math.min(cpuSeconds, (cpu.user + cpu.system) / 1e6);
  }
  await model.close();
  return { textsPerSecond: Number((texts.length / seconds).toFixed(1)), textsPerCpuSecond: Number((texts.length / cpuSeconds).toFixed(1)) };
}

async function bench(label, modelOptions, options, count) {
  const loadModel = new LocalEmbeddingModel({ ...modelOptions, idleUnloadMs: 0, allowDownload: false, threads: options.threads });
  const started = performance.now();
  await loadModel.embed(["warm up"], { kind: "document" });
  const loadMs = Math.round(performance.now() - started);
  await loadModel.close();
  const rows = [];
  for (const textClass of CLASSES) {
    const texts = corpus(count, textClass.min, textClass.max);
    const byBatch = {};
    for (const batch of [...options.batches, "default"]) byBatch[batch] = await measure(modelOptions, options, texts, batch);
    rows.push({ texts: textClass.name, count, byBatch });
  }
  return { model: label, dimensions: loadModel.dimensions, loadMs, rows };
}

const options = parseArgs(process.argv.slice(2));
const threads = options.threads ?? availableParallelism();
const results = [];
results.push(await bench("tiny-bert (generated)", { modelDir: makeTinyModel() }, options, options.texts ?? 256));
if (!options.tinyOnly) {
  // Random weights in multilingual-e5-small's shape (384 hidden, 12 layers, FFN 1536): its
  // speed, not its quality, so throughput can be estimated on a machine without the model.
  // The corpus' words are whole tokens in its vocabulary, so English and code take about as
  // many tokens as with e5's real subword vocabulary instead of one per character.
  const shaped = makeTinyModel({
    outDir: fileURLToPath(new URL("../test-models/bench-e5-small-shape", import.meta.url)),
    hidden: 384,
    layers: 12,
    intermediate: 1536,
    extraWords: SENTENCES.join(" ").match(/[A-Za-z]{2,}/g) ?? [],
  });
  results.push(await bench("e5-small-shaped (generated, random weights)", { modelDir: shaped }, options, options.texts ?? 16));
}
if (process.env.DOCDB_MODEL_DIR) {
  const real = { modelDir: process.env.DOCDB_MODEL_DIR, model: process.env.DOCDB_EMBEDDING_MODEL || undefined };
  const probe = new LocalEmbeddingModel({ ...real, allowDownload: false });
  results.push(await bench(`${probe.modelId} (${process.env.DOCDB_MODEL_DIR})`, real, options, options.texts ?? 32));
}

const machine = { cpu: cpus()[0]?.model ?? "unknown", cores: availableParallelism(), threads, node: process.version };
if (options.json) {
  process.stdout.write(`${JSON.stringify({ machine, results }, null, 2)}\n`);
} else {
  process.stdout.write(
    `local embedding throughput, texts/s (texts per CPU-second) — ${machine.cpu}, ${machine.cores} cores, ${threads} onnxruntime threads, Node ${machine.node}\n`,
  );
  for (const result of results) {
    process.stdout.write(`\n${result.model}: ${result.dimensions} dims, first load ${result.loadMs} ms\n`);
    const columns = [...options.batches, "default"];
    process.stdout.write(
      `  ${"texts".padEnd(20)}${columns.map((b) => (b === "default" ? "default" : `batch ${b}`).padStart(18)).join("")}\n`,
    );
    for (const row of result.rows) {
      const cells = columns.map((b) => {
        const m = row.byBatch[b];
        return `${m.textsPerSecond.toFixed(1)} (${m.textsPerCpuSecond.toFixed(1)})`.padStart(18);
      });
      process.stdout.write(`  ${`${row.count} × ${row.texts}`.padEnd(20)}${cells.join("")}\n`);
    }
  }
  if (!process.env.DOCDB_MODEL_DIR) process.stdout.write("\n(set DOCDB_MODEL_DIR to a real model folder to measure it too)\n");
}
