import { appendFileSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { addNoise, copyFixture, NOISE_MARKERS, TS_PY_FILES } from "../../../test/support/collection-fixtures.js";
import { type FakeOpenAI, startFakeOpenAI } from "../../../test/support/fake-openai.js";
import { type Database, type DocDB, openDocDB, silentLogger } from "../src/index.js";

let dataDir: string;
const open: DocDB[] = [];

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "docdb-collections-"));
});
afterEach(async () => {
  for (const d of open.splice(0)) await d.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function database(
  options: { embedding?: { provider: "openai"; apiKey: string; baseURL: string; dimensions: number } } = {},
): Promise<Database> {
  const docdb = openDocDB({ dataDir, embedding: options.embedding ?? null, logger: silentLogger() });
  open.push(docdb);
  return await docdb.database("vectors", { create: true });
}

async function codeOf(run: () => unknown): Promise<string | undefined> {
  try {
    await run();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

/** path → doc_id of every document in the collection. */
async function docIds(db: Database, collection: string): Promise<Map<string, string>> {
  return new Map((await db.collections.files(collection)).map((f) => [f.path, f.doc_id]));
}

async function allText(db: Database, collection: string): Promise<string> {
  const texts: string[] = [];
  for (const d of await db.listDocuments({ collection, limit: 10_000 })) texts.push((await db.getDocument(d.doc_id)).text);
  return texts.join("\n");
}

describe("collections", () => {
  it("add, update, enable, disable, list and delete, with clear errors", async () => {
    const db = await database();
    const folder = copyFixture("ja-docs");
    const added = await db.collections.add({ name: "api_docs", description: "社内APIの認証とエラー処理のドキュメント", source: folder });
    expect(added).toMatchObject({ name: "api_docs", enabled: true, source: folder, last_import_at: null });

    expect(await codeOf(() => db.collections.add({ name: "api_docs", description: "again", source: folder }))).toBe("CONFLICT");
    expect(await codeOf(() => db.collections.add({ name: "API Docs", description: "x", source: folder }))).toBe("INVALID_REQUEST");
    expect(await codeOf(() => db.collections.add({ name: "x", description: "", source: folder }))).toBe("INVALID_REQUEST");
    expect(await codeOf(() => db.collections.add({ name: "x", description: "d", source: "relative/path" }))).toBe("INVALID_REQUEST");
    expect(await codeOf(() => db.collections.add({ name: "x", description: "d", source: join(folder, "missing") }))).toBe("NOT_FOUND");
    expect(await codeOf(() => db.collections.add({ name: "x", description: "d", source: join(folder, "faq.txt") }))).toBe(
      "INVALID_REQUEST",
    );
    expect(await codeOf(() => db.collections.get("nope"))).toBe("NOT_FOUND");
    expect(await codeOf(() => db.collections.update("api_docs", {}))).toBe("INVALID_REQUEST");

    expect((await db.collections.update("api_docs", { description: "Internal API docs" })).description).toBe("Internal API docs");
    expect((await db.collections.setEnabled("api_docs", false)).enabled).toBe(false);
    expect(await db.collections.list({ all: false })).toEqual([]);
    expect((await db.collections.list()).map((c) => c.name)).toEqual(["api_docs"]);
    await db.collections.setEnabled("api_docs", true);

    await db.collections.import("api_docs");
    const before = (await db.status()).documents;
    expect(before).toBe(4);
    expect(await db.collections.delete("api_docs")).toMatchObject({ documents: 4 });
    expect(await db.status()).toMatchObject({ documents: 0, chunks: 0 });
    expect(await db.collections.list()).toEqual([]);
  });

  it("imports Japanese Markdown by headings with line ranges, and finds a passage by collection and path", async () => {
    const db = await database();
    await db.collections.add({ name: "api_docs", description: "社内APIの認証とエラー処理", source: copyFixture("ja-docs") });
    const summary = await db.collections.import("api_docs", { mode: "new" });
    expect(summary).toMatchObject({ files: 4, added: 4, updated: 0, removed: 0, unchanged: 0 });
    expect(summary.chunks).toBe(summary.total_chunks);
    expect(summary.chunks).toBeGreaterThanOrEqual(4);

    const found = await db.findSimilar({ query: "アクセストークンの有効期限", mode: "keyword", collection: "api_docs", top_k: 3 });
    const top = found.results[0];
    expect(top).toMatchObject({ source: "guide/auth.md", collection: "api_docs" });
    expect(top?.text).toContain("有効期限は24時間");
    expect(top?.heading).toContain("アクセストークン");
    // The passage sits on lines 5-8 of guide/auth.md (heading "## アクセストークン" is line 5).
    expect(top?.line_start).toBe(5);
    expect(top?.line_end).toBeGreaterThanOrEqual(8);
    expect(top?.stale).toBeUndefined();

    const scoped = await db.findSimilar({ query: "再試行", mode: "keyword", collection: "api_docs", path_prefix: "guide/errors" });
    expect(scoped.results.length).toBeGreaterThan(0);
    expect(new Set(scoped.results.map((r) => r.source))).toEqual(new Set(["guide/errors.md"]));
    expect(await codeOf(() => db.findSimilar({ query: "x", collection: "unknown" }))).toBe("NOT_FOUND");

    const doc = await db.getDocument(top!.doc_id);
    expect(doc.metadata).toEqual({ path: "guide/auth.md", kind: "markdown", language: "markdown" });
    expect(doc.chunks.every((c) => c.line_start !== undefined && c.line_end !== undefined)).toBe(true);
  });

  it("honours .gitignore and skips dependencies, build output, binaries, oversized files and outside links", async () => {
    const db = await database();
    const folder = copyFixture("ts-py-project");
    addNoise(folder);
    await db.collections.add({ name: "billing", description: "Billing service source", source: folder });
    const summary = await db.collections.import("billing");
    expect((await db.collections.files("billing")).map((f) => f.path)).toEqual(TS_PY_FILES);
    // Found: the kept files, the empty one and the binary one (the oversized file and the link never qualify).
    expect(summary).toMatchObject({ files: TS_PY_FILES.length + 2, added: TS_PY_FILES.length });
    expect(summary.skipped).toEqual({ too_large: 1, binary: 1, empty: 1, symlink_outside: 1 });
    const text = await allText(db, "billing");
    for (const marker of NOISE_MARKERS) expect(text).not.toContain(marker);
    for (const marker of NOISE_MARKERS) {
      expect((await db.findSimilar({ query: marker, mode: "keyword" })).results).toEqual([]);
    }

    const kinds = Object.fromEntries((await db.listDocuments({ collection: "billing" })).map((d) => [d.source, d.metadata.language]));
    expect(kinds).toMatchObject({
      "src/tokens.ts": "typescript",
      "app/billing.py": "python",
      "README.md": "markdown",
      "docs/notes.txt": "txt",
    });

    // Code is cut at declarations: the rotate method's passage names its class and lines.
    const hit = (await db.findSimilar({ query: "rotate token", mode: "keyword", collection: "billing", path_prefix: "src/" })).results[0];
    expect(hit?.source).toBe("src/tokens.ts");
    expect(hit?.text).toContain("rotate(user: string)");
    expect(hit?.line_start).toBeGreaterThanOrEqual(1);
  });

  it("update touches exactly the edited, deleted and added files", async () => {
    const db = await database();
    const folder = copyFixture("ts-py-project");
    await db.collections.add({ name: "billing", description: "Billing service source", source: folder });
    await db.collections.import("billing", { chunk_size: 200, chunk_overlap: 20 });
    const before = await docIds(db, "billing");
    const chunksBefore = (await db.collections.status("billing"))[0]!.chunks;
    const chunksOf = new Map((await db.collections.files("billing")).map((f) => [f.path, f.chunks]));

    appendFileSync(join(folder, "src/config.ts"), "\nexport const RETRY_LIMIT = 5; // EDITED_MARKER\n");
    unlinkSync(join(folder, "docs/notes.txt"));
    writeFileSync(
      join(folder, "src/refunds.ts"),
      "export function refund(amount: number): number {\n  return -amount; // ADDED_MARKER\n}\n",
    );
    // Touched without a change: size and time differ at most in time, the hash tells.
    writeFileSync(join(folder, "README.md"), readFileSync(join(folder, "README.md")));

    const summary = await db.collections.import("billing", { mode: "update" });
    expect(summary.changed).toEqual({ added: ["src/refunds.ts"], updated: ["src/config.ts"], removed: ["docs/notes.txt"] });
    expect(summary).toMatchObject({ added: 1, updated: 1, removed: 1, unchanged: before.size - 2 });

    const after = await docIds(db, "billing");
    expect([...after.keys()].sort()).toEqual(
      [...before.keys()]
        .filter((p) => p !== "docs/notes.txt")
        .concat("src/refunds.ts")
        .sort(),
    );
    for (const [path, id] of after) {
      if (path === "src/config.ts" || path === "src/refunds.ts") expect(before.get(path)).not.toBe(id);
      else expect(before.get(path)).toBe(id);
    }
    const status = (await db.collections.status("billing"))[0]!;
    expect(status.documents).toBe(after.size);
    expect(status.chunks).toBe(chunksBefore - chunksOf.get("docs/notes.txt")! - chunksOf.get("src/config.ts")! + summary.chunks);
    expect(await allText(db, "billing")).toContain("EDITED_MARKER");

    const again = await db.collections.import("billing");
    expect(again).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: after.size, chunks: 0 });

    // Other chunk settings re-chunk every file.
    const rechunked = await db.collections.import("billing", { chunk_size: 400, chunk_overlap: 40 });
    expect(rechunked.updated).toBe(after.size);
  });

  it("replace rebuilds every document; new on a non-empty collection is a CONFLICT", async () => {
    const db = await database();
    await db.collections.add({ name: "api_docs", description: "API docs", source: copyFixture("ja-docs") });
    await db.collections.import("api_docs", { mode: "new" });
    const before = await docIds(db, "api_docs");
    const counts = (await db.collections.status("api_docs"))[0]!;

    expect(await codeOf(() => db.collections.import("api_docs", { mode: "new" }))).toBe("CONFLICT");

    const replaced = await db.collections.import("api_docs", { mode: "replace" });
    expect(replaced).toMatchObject({ added: before.size, updated: 0, removed: 0, unchanged: 0 });
    const after = await docIds(db, "api_docs");
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [path, id] of after) expect(before.get(path)).not.toBe(id);
    expect((await db.collections.status("api_docs"))[0]).toMatchObject({ documents: counts.documents, chunks: counts.chunks });
    expect((await db.status()).documents).toBe(counts.documents);
  });

  it("marks results from files changed after the import as stale", async () => {
    const db = await database();
    const folder = copyFixture("ja-docs");
    await db.collections.add({ name: "api_docs", description: "API docs", source: folder });
    await db.collections.import("api_docs");
    const query = { query: "リフレッシュトークン", mode: "keyword" as const, collection: "api_docs" };
    expect((await db.findSimilar(query)).results[0]?.stale).toBeUndefined();

    appendFileSync(join(folder, "guide/auth.md"), "\n追記です。\n");
    const stale = (await db.findSimilar(query)).results[0];
    expect(stale).toMatchObject({ source: "guide/auth.md", stale: true });
    expect(stale?.note).toMatch(/changed after it was imported/);

    await db.collections.import("api_docs");
    expect((await db.findSimilar(query)).results[0]?.stale).toBeUndefined();

    unlinkSync(join(folder, "guide/auth.md"));
    expect((await db.findSimilar(query)).results[0]?.note).toMatch(/deleted or moved/);
  });
});

describe("collections with an embedding model (fake OpenAI server)", () => {
  let server: FakeOpenAI;
  beforeAll(async () => {
    server = await startFakeOpenAI({ dimensions: 64 });
  });
  afterAll(async () => server.close());

  it("embeds imported chunks, and leaves them pending (still keyword-searchable) when the provider is down", async () => {
    const db = await database({ embedding: { provider: "openai", apiKey: "sk-test", baseURL: server.url, dimensions: 64 } });
    const folder = copyFixture("ja-docs");
    await db.collections.add({ name: "api_docs", description: "API docs", source: folder });
    const summary = await db.collections.import("api_docs");
    expect(summary.embedded).toBe(summary.chunks);
    expect(summary.pending).toBe(0);
    const vector = await db.findSimilar({ query: "トークンの有効期限は？", mode: "vector", collection: "api_docs" });
    expect(vector.results.length).toBeGreaterThan(0);

    appendFileSync(join(folder, "faq.txt"), "返金は行いません。\n");
    server.failures.push({ status: 401, body: { error: { message: "invalid api key", type: "invalid_request_error" } } });
    const down = await db.collections.import("api_docs");
    server.failures.length = 0;
    expect(down.updated).toBe(1);
    expect(down.pending).toBeGreaterThan(0);
    expect(down.warnings.join(" ")).toMatch(/embed --pending/);
    expect((await db.findSimilar({ query: "返金", mode: "keyword", collection: "api_docs" })).results[0]?.source).toBe("faq.txt");

    const next = await db.collections.import("api_docs");
    expect(next).toMatchObject({ unchanged: 4, pending: 0 });
  });

  it("re-importing a 50-chunk file with one paragraph changed sends only the changed chunks to the provider", async () => {
    const db = await database({ embedding: { provider: "openai", apiKey: "sk-test", baseURL: server.url, dimensions: 64 } });
    const folder = mkdtempSync(join(tmpdir(), "docdb-reuse-"));
    try {
      // Fifty paragraphs, each about one chunk long (chunk size 200), separated by blank lines.
      const paragraphs = Array.from({ length: 50 }, (_, i) => `第${i}節。` + `段落${i}の本文は設定と運用について説明します。`.repeat(8));
      writeFileSync(join(folder, "guide.txt"), paragraphs.join("\n\n"));
      await db.collections.add({ name: "guide", description: "A long guide", source: folder });
      const first = await db.collections.import("guide", { chunk_size: 200, chunk_overlap: 0 });
      expect(first.chunks).toBeGreaterThanOrEqual(50);
      expect(first.embedded).toBe(first.chunks);

      const sentBefore = server.requests.flatMap((r) => r.input).length;
      // Same length as before, so the chunk boundaries around it do not move.
      paragraphs[25] = `第25節。${"段落25の本文は書き換えた内容を今説明します。".repeat(8)}`;
      expect(paragraphs[25].length).toBe(`第25節。${"段落25の本文は設定と運用について説明します。".repeat(8)}`.length);
      writeFileSync(join(folder, "guide.txt"), paragraphs.join("\n\n"));
      const second = await db.collections.import("guide");
      const sent = server.requests.flatMap((r) => r.input).slice(sentBefore);
      expect(second.updated).toBe(1);
      // Only chunks whose text changed went to the provider; the rest kept their vectors.
      expect(sent.length).toBeGreaterThan(0);
      expect(sent.length).toBeLessThanOrEqual(3);
      expect(sent.every((input) => input.includes("書き換えた"))).toBe(true);
      expect(second.reused_vectors).toBe(second.chunks - sent.length);
      expect(second.embedded).toBe(sent.length);
      expect(await db.status()).toMatchObject({ pending: 0, reused_vectors: second.reused_vectors });
      const found = await db.findSimilar({ query: "書き換えた内容", mode: "keyword", collection: "guide" });
      expect(found.results[0]?.text).toContain("書き換えた");
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
