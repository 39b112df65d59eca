import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EmbeddingConfig, openDocDB, silentLogger } from "@docdb/core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { closedPort } from "../../../test/support/fake-hf-hub.js";
import { type FakeOllama, startFakeOllama } from "../../../test/support/fake-ollama.js";
import { type StartedProcess, startNode } from "../../../test/support/node-process.js";
import { tinyModelDir } from "../../../test/support/tiny-model.js";
import { CLI, type CliResult, runCli } from "./run-cli.js";

// The built CLI, run as a process, with the local provider on the generated tiny models.
let tiny32: string;
let tiny48: string;
let scratch: string;
let dataDir: string;
let offlineHub: string;

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
  tiny32 = tinyModelDir(32);
  tiny48 = tinyModelDir(48);
  scratch = mkdtempSync(join(tmpdir(), "docdb-cli-embed-"));
  // A hub address where nothing listens: "offline" even on a machine with internet.
  offlineHub = `http://127.0.0.1:${await closedPort()}`;
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
beforeEach(() => {
  dataDir = mkdtempSync(join(scratch, "data-"));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

/** No key, no explicit provider: the default (local) applies. Downloads allowed but unreachable. */
function defaultEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    DOCDB_EMBEDDING: undefined,
    OPENAI_API_KEY: undefined,
    DOCDB_MODEL_DIR: undefined,
    DOCDB_MODEL_DOWNLOAD: "1",
    HF_ENDPOINT: offlineHub,
    DOCDB_MODEL_CACHE: join(scratch, "empty-cache"),
    ...extra,
  };
}

const docdb = (args: string[], env: Record<string, string | undefined> = {}) =>
  runCli(["--data-dir", dataDir, ...args], { env: defaultEnv(env) });
const withModel = (dir: string) => ({ DOCDB_MODEL_DIR: dir });

function json<T>(result: CliResult): T {
  if (result.code !== 0) throw new Error(`exit ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

type Status = {
  current_model: string | null;
  current_model_state?: { ready: boolean; problem?: string };
  databases: { name: string; chunks: number; pending: number; embedded: number; model: unknown }[];
};
type Found = { doc_id: string; text: string; score: number; distance?: number }[];

const DOCS = [
  "東京は日本の首都で、人口は約1400万人です。",
  "大阪は商人の町として発展し、食い倒れの街と呼ばれます。",
  "Tokyo is the capital of Japan and its largest city.",
];

/** Fills a database in-process through core (quicker than a CLI process per document). */
async function seed(texts: string[], embedding: EmbeddingConfig, db = "vectors"): Promise<void> {
  const docdb = openDocDB({ dataDir, embedding, logger: silentLogger() });
  try {
    const database = await docdb.database(db, { create: true });
    for (const text of texts) await database.insertDocument({ text });
  } finally {
    await docdb.close();
  }
}
const tinyConfig = (dir: string): EmbeddingConfig => ({ provider: "local", modelDir: dir });

describe("no key, no model, offline", () => {
  it("stores the document pending with a warning and exit 0; the tiny model then embeds it and vector search works", async () => {
    const inserted = await docdb(["insert", "--text", DOCS[0] as string, "--json"]);
    expect(inserted.code).toBe(0);
    expect(json<{ embedded: boolean; chunk_count: number }>(inserted)).toMatchObject({ embedded: false, chunk_count: 1 });
    expect(inserted.stderr).toMatch(/^warning: stored without vectors \(local embedding model Xenova\/multilingual-e5-small/m);
    // One short line per insert: it points at `docdb models` for the ways to get a model.
    for (const hint of ["docdb models", "docdb embed --pending --db vectors"]) expect(inserted.stderr).toContain(hint);
    const models = await docdb(["models"]);
    for (const way of ["DOCDB_MODEL_DIR", "download cache"]) expect(models.stdout + models.stderr).toContain(way);
    expect(inserted.stderr).not.toMatch(/"level"/); // one warning, not a copy in the log too
    expect(inserted.stderr).not.toMatch(/EMBEDDING_UNAVAILABLE: .*EMBEDDING_UNAVAILABLE/);
    await docdb(["insert", "--text", DOCS[1] as string]);
    await docdb(["insert", "--text", DOCS[2] as string]);

    const keyword = json<Found>(await docdb(["find", "東京", "--mode", "keyword", "--json"]));
    expect(keyword.map((r) => r.text)).toContain(DOCS[0]);
    const before = json<Status>(await docdb(["status", "--json"]));
    expect(before.current_model).toBe("local/Xenova/multilingual-e5-small (384)");
    expect(before.current_model_state).toMatchObject({ ready: false, problem: expect.stringMatching(/cannot be reached/) });
    const human = await docdb(["status"]);
    expect(human.stdout).toMatch(
      /current embedding model: local\/Xenova\/multilingual-e5-small \(384\), which cannot load: it is not on disk and http:\/\/127\.0\.0\.1:\d+ cannot be reached/,
    );
    expect(before.databases[0]).toMatchObject({ chunks: 3, pending: 3, embedded: 0, model: null });

    const embedded = await docdb(["embed", "--pending", "--json"], withModel(tiny32));
    expect(json(embedded)).toEqual({ embedded: 3, remaining: 0 });
    const after = json<Status>(await docdb(["status", "--json"], withModel(tiny32)));
    expect(after.databases[0]).toMatchObject({ pending: 0, embedded: 3, model: { provider: "local", model: "tiny-bert", dimensions: 32 } });

    const vector = json<Found>(await docdb(["find", DOCS[1] as string, "--mode", "vector", "--json"], withModel(tiny32)));
    expect(vector).toHaveLength(3);
    for (const r of vector) expect(r.distance).toBeTypeOf("number");
    const distances = vector.map((r) => r.distance as number);
    expect([...distances].sort((a, b) => a - b)).toEqual(distances);
    // The query is one document's exact text, and the tiny model has no prefixes: distance ~0.
    expect(vector[0]?.text).toBe(DOCS[1]);
    expect(vector[0]?.distance).toBeLessThan(1e-4);
  });

  it("a failed `embed --pending` does not bind the database to the model that failed", async () => {
    await docdb(["insert", "--text", DOCS[0] as string]);
    const failed = await docdb(["embed", "--pending"]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^EMBEDDING_UNAVAILABLE: .*Xenova\/multilingual-e5-small.*OPENAI_API_KEY/m);
    // Says what to fix, not just "run the command again".
    expect(failed.stderr).toMatch(/To fix: make the local model available/);
    expect(failed.stderr).not.toMatch(/run the command again to continue/);
    expect(failed.stderr).not.toMatch(/EMBEDDING_UNAVAILABLE: .*EMBEDDING_UNAVAILABLE/);
    const status = json<Status>(await docdb(["status", "--json"]));
    expect(status.databases[0]).toMatchObject({ pending: 1, model: null });
    // So another model can embed it without a mismatch.
    expect(json(await docdb(["embed", "--pending", "--json"], withModel(tiny32)))).toEqual({ embedded: 1, remaining: 0 });
  });
});

describe("model safety", () => {
  it("another dimension is DIMENSION_MISMATCH naming reembed; reembed rebuilds the vectors with a progress line", async () => {
    await seed(DOCS, tinyConfig(tiny32), "notes");
    const status = json<Status>(await docdb(["status", "--db", "notes", "--json"], withModel(tiny32)));
    expect(status.databases[0]).toMatchObject({ pending: 0, embedded: 3 });

    for (const args of [
      ["find", "東京", "--db", "notes", "--mode", "vector"],
      ["insert", "--db", "notes", "--text", "名古屋"],
      ["embed", "--pending", "--db", "notes"],
    ]) {
      const refused = await docdb(args, withModel(tiny48));
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe("");
      expect(refused.stderr).toMatch(/^DIMENSION_MISMATCH: database "notes" holds 32-dimension vectors from local\/tiny-bert.*makes 48/m);
      expect(refused.stderr).toContain("docdb reembed --db notes");
    }

    const rebuilt = await docdb(["reembed", "--db", "notes"], withModel(tiny48));
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.stdout).toBe("re-embedded 3 chunk(s); 0 pending\n");
    expect(rebuilt.stderr).toMatch(/re-embedding: 3\/3 \(100%\)/);
    const after = json<Status>(await docdb(["status", "--db", "notes", "--json"], withModel(tiny48)));
    expect(after.databases[0]).toMatchObject({ pending: 0, embedded: 3, model: { model: "tiny-bert-48", dimensions: 48 } });
    const found = json<Found>(await docdb(["find", DOCS[2] as string, "--db", "notes", "--mode", "vector", "--json"], withModel(tiny48)));
    expect(found[0]?.text).toBe(DOCS[2]);
    expect(found[0]?.distance).toBeLessThan(1e-4);
    // And now the old model is the mismatch.
    const old = await docdb(["find", "東京", "--db", "notes", "--mode", "vector"], withModel(tiny32));
    expect(old.stderr).toMatch(/^DIMENSION_MISMATCH: .*48-dimension vectors from local\/tiny-bert-48/m);
  });

  it("another model of the same dimension is MODEL_MISMATCH", async () => {
    await seed(DOCS, tinyConfig(tiny32));
    const renamed = join(scratch, "renamed-tiny");
    if (!existsSync(renamed)) symlinkSync(tiny32, renamed);
    const refused = await docdb(["find", "東京", "--mode", "vector"], withModel(renamed));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^MODEL_MISMATCH: database "vectors" was embedded with local\/tiny-bert, but the current model is local\/renamed-tiny/m,
    );
    expect(refused.stderr).toContain("docdb reembed --db vectors");
  });

  it("reembed with a model that cannot load fails and keeps the stored vectors", async () => {
    await seed(DOCS, tinyConfig(tiny32));
    const failed = await docdb(["reembed"], withModel(join(scratch, "missing-model")));
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^EMBEDDING_UNAVAILABLE: cannot re-embed, the stored vectors are unchanged: .*missing-model/m);
    const status = json<Status>(await docdb(["status", "--json"], withModel(tiny32)));
    expect(status.databases[0]).toMatchObject({ pending: 0, embedded: 3, model: { model: "tiny-bert" } });
  });
});

/** The CLI as a child process the test can signal. */
function startCli(args: string[], env: Record<string, string | undefined>): StartedProcess {
  return startNode(CLI, ["--data-dir", dataDir, ...args], { env: { ...process.env, DOCDB_LOG_LEVEL: "warn", ...defaultEnv(env) } });
}

describe("interrupted runs resume (fake Ollama as the provider, so the test knows each batch)", () => {
  let ollama: FakeOllama;
  beforeEach(async () => {
    ollama = await startFakeOllama({ "bge-m3": 1024 });
  });
  afterEach(async () => {
    await ollama.close();
  });
  const viaOllama = () => ({ DOCDB_EMBEDDING: "ollama", DOCDB_OLLAMA_URL: ollama.url });

  async function insertPending(count: number): Promise<string[]> {
    const texts = Array.from({ length: count }, (_, i) => `note ${i}: 文書番号${i}の本文です。`);
    await seed(texts, { provider: "none" });
    return texts;
  }

  it("embed --pending stopped by Ctrl-C keeps the finished batches and the next run does only the rest", async () => {
    const texts = await insertPending(20);
    const run = startCli(["embed", "--pending", "--batch-size", "4"], viaOllama());
    ollama.onRequest = async (index) => {
      if (index !== 3) return;
      run.child.kill("SIGINT");
      await run.done; // answer only after the client is gone
    };
    const interrupted = await run.done;
    expect(interrupted.code).toBe(1);
    expect(interrupted.stderr).toMatch(/interrupted; finished batches are saved, run the command again to continue/);
    const middle = json<Status>(await docdb(["status", "--json"], { DOCDB_EMBEDDING: "none" }));
    expect(middle.databases[0]).toMatchObject({ chunks: 20, embedded: 12, pending: 8 });

    ollama.onRequest = undefined;
    const asked = ollama.requests.length;
    const resumed = await docdb(["embed", "--pending", "--batch-size", "4", "--json"], viaOllama());
    expect(json(resumed)).toEqual({ embedded: 8, remaining: 0 });
    const resent = ollama.requests.slice(asked).flatMap((r) => r.input);
    expect(resent.sort()).toEqual(texts.slice(12).sort());
  });

  it("reembed killed outright (SIGKILL) finishes on the next run", async () => {
    await insertPending(12);
    expect(json(await docdb(["embed", "--pending", "--json"], viaOllama()))).toEqual({ embedded: 12, remaining: 0 });
    // Now a different model of the same provider: everything must be rebuilt.
    const other = { ...viaOllama(), DOCDB_EMBEDDING_MODEL: "all-minilm" };
    await ollama.close();
    ollama = await startFakeOllama({ "bge-m3": 1024, "all-minilm": 384 });
    const otherModel = { ...other, DOCDB_OLLAMA_URL: ollama.url };
    const run = startCli(["reembed", "--batch-size", "4"], otherModel);
    // Request 0 is reembed's check that the model answers; 1 and 2 are batches; kill at the third.
    ollama.onRequest = async (index) => {
      if (index !== 3) return;
      run.child.kill("SIGKILL");
      await run.done;
    };
    const killed = await run.done;
    expect(killed.code).toBe(null);
    const middle = json<Status>(await docdb(["status", "--json"], { DOCDB_EMBEDDING: "none" }));
    expect(middle.databases[0]).toMatchObject({ chunks: 12, embedded: 8, pending: 4, model: { model: "all-minilm", dimensions: 384 } });

    ollama.onRequest = undefined;
    const resumed = await docdb(["reembed", "--batch-size", "4", "--json"], otherModel);
    expect(json(resumed)).toEqual({ embedded: 4, remaining: 0 });
    const done = json<Status>(await docdb(["status", "--json"], otherModel));
    expect(done.databases[0]).toMatchObject({ embedded: 12, pending: 0 });
  });

  it("an Ollama that is not running leaves inserts pending with a clear warning", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const inserted = await docdb(["insert", "--text", "hello", "--json"], { DOCDB_EMBEDDING: "ollama", DOCDB_OLLAMA_URL: url });
    expect(inserted.code).toBe(0);
    expect(json<{ embedded: boolean }>(inserted).embedded).toBe(false);
    expect(inserted.stderr).toContain(`cannot reach Ollama at ${url} (ECONNREFUSED)`);
  });
});

describe("docdb models", () => {
  type Models = {
    current: { provider: string; model: string; dimensions: number } | null;
    models: { id: string; default: boolean; current: boolean; present: boolean; path: string | null; dimensions: number }[];
  };

  it("lists the known models, the default, and none present on a clean machine", async () => {
    const listed = json<Models>(await docdb(["models", "--json"]));
    expect(listed.current).toEqual({ provider: "local", model: "Xenova/multilingual-e5-small", dimensions: 384 });
    const e5 = listed.models.find((m) => m.id === "Xenova/multilingual-e5-small");
    expect(e5).toMatchObject({ default: true, current: true, present: false, dimensions: 384 });
    expect(listed.models.length).toBeGreaterThanOrEqual(3);
    expect(listed.models.every((m) => !m.present)).toBe(true);
    const table = await docdb(["models"]);
    expect(table.stdout).toMatch(/^\*\s+Xenova\/multilingual-e5-small \(default\)\s+384 .*no \(hub unreachable\)$/m);
  });

  it("finds models in a models folder laid out <org>/<name>, and shows a folder's own model", async () => {
    const root = join(scratch, "models-root");
    mkdirSync(join(root, "Xenova"), { recursive: true });
    if (!existsSync(join(root, "Xenova", "all-MiniLM-L6-v2"))) symlinkSync(tiny32, join(root, "Xenova", "all-MiniLM-L6-v2"));
    const fromRoot = json<Models>(await docdb(["models", "--json"], withModel(root)));
    expect(fromRoot.models.find((m) => m.id === "Xenova/all-MiniLM-L6-v2")).toMatchObject({
      present: true,
      path: join(root, "Xenova", "all-MiniLM-L6-v2"),
    });
    expect(fromRoot.models.find((m) => m.id === "Xenova/multilingual-e5-small")?.present).toBe(false);

    const single = json<Models>(await docdb(["models", "--json"], withModel(tiny48)));
    expect(single.current).toEqual({ provider: "local", model: "tiny-bert-48", dimensions: 48 });
    expect(single.models.find((m) => m.id === "tiny-bert-48")).toMatchObject({ current: true, present: true, path: tiny48 });
    expect(single.models.filter((m) => m.present)).toHaveLength(1);
  });

  it("follows --embedding over DOCDB_EMBEDDING, and rejects an unknown provider", async () => {
    const none = json<Models>(await docdb(["--embedding", "none", "models", "--json"], { DOCDB_EMBEDDING: "local" }));
    expect(none.current).toBe(null);
    const bad = await docdb(["status"], { DOCDB_EMBEDDING: "bogus" });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^INVALID_REQUEST: DOCDB_EMBEDDING="bogus" is not a provider: use one of openai, local, ollama, none/m);
  });
});
