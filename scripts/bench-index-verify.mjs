// What verifying the HNSW index file costs: builds a SQLite database of N random vectors with its
// index (or reuses one in --dir), then times the SHA-256 of the whole file (the check made before
// usearch reads it), `index status` (which verifies too), and a fresh process's first query
// (verify + load + search).
//   node scripts/bench-index-verify.mjs [--vectors 200000] [--dims 384] [--dir /tmp/docdb-verify] [--runs 5]
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { seeded } from "./seeded-random.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const vectors = Number(option("vectors", "200000"));
const dims = Number(option("dims", "384"));
const runs = Number(option("runs", "5"));
const dir = option("dir", `/tmp/docdb-verify-${vectors}x${dims}`);
const { createSqliteEngine } = await import(fileURLToPath(new URL("../packages/store-sqlite/dist/index.js", import.meta.url)));
const engine = () => createSqliteEngine({ dataDir: dir, vectorIndex: { threshold: 1 } });
const file = join(dir, "bench.db.hnsw");
const next = seeded(7);
const unit = () => {
  const v = Float32Array.from({ length: dims }, () => next() * 2 - 1);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};

if (!existsSync(file)) {
  mkdirSync(dir, { recursive: true });
  const e = engine();
  const store = await e.openDatabase("bench", { create: true });
  await store.setEmbeddingInfo({ provider: "bench", model: "random", dimensions: dims });
  const started = Date.now();
  for (let i = 0; i < vectors; i += 1000) {
    const docs = [];
    for (let j = i; j < Math.min(vectors, i + 1000); j++) {
      const id = String(j).padStart(9, "0");
      docs.push({
        document: { id: `d${id}`, content: "x", contentHash: "h", metadata: {} },
        chunks: [{ id: `c${id}`, idx: 0, text: "x", start: 0, end: 1, vector: unit() }],
      });
    }
    await store.writeDocuments(docs);
  }
  console.log(`wrote ${vectors} × ${dims} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const built = Date.now();
  await store.vectorIndex.rebuild({ settings: { quantization: "f16" } });
  console.log(`built the index in ${((Date.now() - built) / 1000).toFixed(0)} s`);
  await e.close();
}

const bytes = statSync(file).size;
const mb = bytes / 2 ** 20;
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function sha256() {
  const handle = await open(file, "r");
  const hash = createHash("sha256");
  const buffer = Buffer.allocUnsafe(4 << 20);
  for (let position = 0; ; ) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  await handle.close();
  return hash.digest("hex");
}
const time = async (work) => {
  const t = performance.now();
  await work();
  return performance.now() - t;
};
const hashes = [];
for (let r = 0; r < runs; r++) hashes.push(await time(sha256));
const statuses = [];
const firsts = [];
for (let r = 0; r < runs; r++) {
  const e = engine();
  const store = await e.openDatabase("bench");
  firsts.push(await time(() => store.vectorSearch(unit(), { limit: 10 })));
  statuses.push(await time(() => store.vectorIndex.status()));
  await e.close();
}
const h = median(hashes);
console.log(`index file: ${mb.toFixed(1)} MB (${vectors} × ${dims}, f16)`);
console.log(`SHA-256 of the file (the check before load): ${h.toFixed(0)} ms median of ${runs} = ${(h / mb).toFixed(2)} ms/MB`);
console.log(
  `index status (verifies): ${median(statuses).toFixed(0)} ms; first query of a fresh store (verify + load + search): ${median(firsts).toFixed(0)} ms`,
);
