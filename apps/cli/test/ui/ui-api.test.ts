// The page's HTTP side without a browser: the built `docdb ui` with a real SQLite database and a
// local embedding server: token, Origin/Host, CSP, and every API endpoint's shape.
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyFixture } from "../../../../test/support/collection-fixtures.js";
import { type FakeOpenAI, startFakeOpenAI } from "../../../../test/support/fake-openai.js";
import { runCli } from "../run-cli.js";
import { parseEvents, startUi, TOKEN, type UiProcess } from "./ui-server.js";

const MODEL_ENV = { DOCDB_EMBEDDING: "openai", OPENAI_API_KEY: "sk-test", DOCDB_EMBEDDING_DIMENSIONS: "32" };

describe("docdb ui: the page's server", () => {
  let dir: string;
  let openai: FakeOpenAI;
  let ui: UiProcess;
  let env: Record<string, string>;
  const ids: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "docdb-ui-api-"));
    openai = await startFakeOpenAI({ dimensions: 32 });
    env = { ...MODEL_ENV, OPENAI_BASE_URL: openai.url };
    ui = await startUi(join(dir, "data"), env);
    for (const doc of [
      { title: "Tokyo", text: "Tokyo is the capital of Japan and its largest city.", metadata: { lang: "en", year: 2024 } },
      { title: "東京", text: "東京は日本の首都で、人口は約1400万人です。", metadata: { lang: "ja", year: 2025 } },
      { title: "Rhine", text: "The Rhine flows from the Swiss Alps into the North Sea.", metadata: { lang: "en", year: 2020 } },
    ]) {
      const inserted = await ui.api<{ doc_id: string; chunk_count: number }>("POST", "/databases/vectors/documents", doc);
      expect(inserted.status, JSON.stringify(inserted.body)).toBe(201);
      ids.push(inserted.body.doc_id);
    }
  }, 120_000);

  afterAll(async () => {
    await ui?.stop();
    await openai?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("serves the page with a strict Content-Security-Policy and no inline script", async () => {
    const page = await fetch(`${ui.base}/ui/`);
    expect(page.status).toBe(200);
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    const html = await page.text();
    for (const script of html.match(/<script\b[^>]*>/g) ?? []) expect(script).toMatch(/\bsrc="/);
    expect(html).not.toMatch(/\sstyle="/);
    for (const file of ["app.js", "app.css"]) {
      const asset = await fetch(`${ui.base}/ui/${file}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get("content-security-policy")).toBe(csp);
    }
    expect((await fetch(`${ui.base}/ui/../package.json`)).status).toBe(404);
  });

  it("answers 401 without the token or with a wrong one, and never sets a cookie", async () => {
    const none = await fetch(`${ui.base}/ui/api/databases`);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe("UNAUTHORIZED");
    const wrong = await fetch(`${ui.base}/ui/api/me`, { headers: { authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
    const right = await ui.api<{ access: string }>("GET", "/me");
    expect(right.status).toBe(200);
    expect(right.body.access).toBe("admin");
    const search = await fetch(`${ui.base}/ui/api/databases/vectors/search`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "Tokyo" }),
    });
    expect(search.status).toBe(401);
    expect(search.headers.get("set-cookie")).toBeNull();
  });

  it("refuses a foreign Origin or Host, and a body that is not JSON", async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const origin = await fetch(`${ui.base}/ui/api/me`, { headers: { ...auth, origin: "http://evil.example" } });
    expect(origin.status).toBe(403);
    expect(await origin.text()).toContain("not allowed");
    const own = await fetch(`${ui.base}/ui/api/me`, { headers: { ...auth, origin: ui.base } });
    expect(own.status).toBe(200);
    // fetch() may not set Host: a plain request does, as a DNS-rebinding page's browser would.
    const hostStatus = await new Promise<number>((resolve, reject) => {
      const url = new URL(`${ui.base}/ui/api/me`);
      request({ host: url.hostname, port: url.port, path: url.pathname, headers: { ...auth, host: "evil.example" } }, (r) => {
        r.resume();
        resolve(r.statusCode ?? 0);
      })
        .on("error", reject)
        .end();
    });
    expect(hostStatus).toBe(403);
    const form = await fetch(`${ui.base}/ui/api/databases/vectors/documents`, {
      method: "POST",
      headers: { ...auth, "content-type": "text/plain" },
      body: JSON.stringify({ text: "a cross-site form post" }),
    });
    expect(form.status).toBe(415);
  });

  it("lists databases with counts, model, engine and index state", async () => {
    const { status, body } = await ui.api<{ databases: Record<string, unknown>[] }>("GET", "/databases");
    expect(status).toBe(200);
    const db = body.databases.find((d) => d.name === "vectors");
    expect(db).toMatchObject({ engine: "sqlite", documents: 3, chunks: 3, embedded: 3, pending: 0 });
    expect(db?.model).toMatchObject({ provider: "openai", dimensions: 32 });
    expect(db?.index).toHaveProperty("state");
  });

  it("searches in each mode with ranks, terms and query time, and applies a filter", async () => {
    for (const mode of ["keyword", "vector", "hybrid"] as const) {
      const { status, body } = await ui.api<{
        mode: string;
        results: { doc_id: string; title: string; text: string; score: number; why: Record<string, number | null> }[];
        terms: string[];
        took_ms: number;
        warnings: string[];
      }>("POST", "/databases/vectors/search", { query: "capital of Japan", mode, top_k: 3 });
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body.mode).toBe(mode);
      expect(body.results.length).toBeGreaterThan(0);
      expect(body.terms).toEqual(expect.arrayContaining(["capital", "japan"]));
      expect(body.took_ms).toBeTypeOf("number");
      const first = body.results[0];
      expect(first?.text).toBeTypeOf("string");
      if (mode === "keyword") expect(first?.why).toMatchObject({ keyword_rank: 1, fused: null });
      if (mode === "vector") expect(first?.why).toMatchObject({ vector_rank: 1, fused: null });
      if (mode === "hybrid") {
        expect(first?.why.fused).toBe(first?.score);
        expect(body.results.some((r) => r.why.keyword_rank !== null && r.why.vector_rank !== null)).toBe(true);
      }
    }
    const filtered = await ui.api<{ results: { title: string }[] }>("POST", "/databases/vectors/search", {
      query: "Tokyo 東京 Rhine",
      mode: "keyword",
      filter: JSON.stringify({ lang: "ja" }),
    });
    expect(filtered.body.results.map((r) => r.title)).toEqual(["東京"]);
    const ranged = await ui.api<{ results: { title: string }[] }>("POST", "/databases/vectors/search", {
      query: "Tokyo Rhine",
      mode: "keyword",
      filter: { year: { $lt: 2022 } },
    });
    expect(ranged.body.results.map((r) => r.title)).toEqual(["Rhine"]);
    const bad = await ui.api<{ error: { code: string; message: string } }>("POST", "/databases/vectors/search", {
      query: "x",
      filter: "{nope",
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain("filter");
  });

  it("pages and sorts documents, and shows one with its chunks", async () => {
    const page = await ui.api<{ documents: { doc_id: string; title: string; chunk_count: number; pending: number }[]; total: number }>(
      "GET",
      "/databases/vectors/documents?sort=title&order=desc&limit=2",
    );
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(3);
    expect(page.body.documents.map((d) => d.title)).toEqual(["東京", "Tokyo"]);
    expect(page.body.documents[0]).toMatchObject({ chunk_count: 1, pending: 0 });
    const next = await ui.api<{ documents: { title: string }[] }>(
      "GET",
      "/databases/vectors/documents?sort=title&order=desc&limit=2&offset=2",
    );
    expect(next.body.documents.map((d) => d.title)).toEqual(["Rhine"]);
    const filtered = await ui.api<{ documents: { title: string }[] }>(
      "GET",
      `/databases/vectors/documents?filter=${encodeURIComponent(JSON.stringify({ lang: "ja" }))}`,
    );
    expect(filtered.body.documents.map((d) => d.title)).toEqual(["東京"]);
    expect((await ui.api("GET", "/databases/vectors/documents?sort=secret")).status).toBe(400);

    const doc = await ui.api<{
      doc_id: string;
      metadata: unknown;
      chunks: { text: string; start: number; end: number; embedded: boolean }[];
    }>("GET", `/databases/vectors/documents/${ids[1]}`);
    expect(doc.status).toBe(200);
    expect(doc.body.metadata).toEqual({ lang: "ja", year: 2025 });
    expect(doc.body.chunks[0]).toMatchObject({ start: 0, embedded: true, text: "東京は日本の首都で、人口は約1400万人です。" });
  });

  it("imports a folder with progress events, updates it, embeds, rebuilds the index, deletes", async () => {
    const folder = copyFixture("ja-docs");
    const added = await ui.api<{ name: string; source: string }>("POST", "/databases/vectors/collections", {
      name: "guide",
      source: folder,
      description: "A product guide in Japanese",
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const imported = await ui.api<string>("POST", "/databases/vectors/collections/guide/import", {});
    expect(imported.status).toBe(200);
    const events = parseEvents(imported.body);
    expect(events.filter((e) => e.event === "progress").length).toBeGreaterThan(0);
    const done = events.at(-1);
    expect(done?.event).toBe("done");
    expect(done?.data).toMatchObject({ collection: "guide" });
    expect((done?.data as { added?: number } | undefined)?.added).toBeGreaterThan(0);
    const files = (events.filter((e) => e.event === "progress").at(-1)?.data ?? {}) as { files_done: number; files_total: number };
    expect(files.files_total).toBeGreaterThan(0);

    const collections = await ui.api<{ collections: Record<string, unknown>[] }>("GET", "/databases/vectors/collections");
    expect(collections.body.collections[0]).toMatchObject({ name: "guide", source: folder, watched: true });
    expect(collections.body.collections[0]?.documents).toBeGreaterThan(0);

    const again = parseEvents((await ui.api<string>("POST", "/databases/vectors/collections/guide/import")).body).at(-1);
    expect(again).toMatchObject({ event: "done", data: { added: 0 } });
    expect(parseEvents((await ui.api<string>("POST", "/databases/vectors/embed", {})).body).at(-1)).toMatchObject({
      event: "done",
      data: { remaining: 0 },
    });
    expect(parseEvents((await ui.api<string>("POST", "/databases/vectors/rebuild-index", {})).body).at(-1)?.event).toBe("done");

    const gone = await ui.api<{ documents: number }>("DELETE", "/databases/vectors/collections/guide");
    expect(gone.status).toBe(200);
    expect(gone.body.documents).toBeGreaterThan(0);
    expect((await ui.api("DELETE", `/databases/vectors/documents/${ids[2]}`)).body).toEqual({ deleted_chunks: 1 });
    expect((await ui.api("GET", `/databases/vectors/documents/${ids[2]}`)).status).toBe(404);
    rmSync(folder, { recursive: true, force: true });
  }, 120_000);

  it("shows agent memory: topics, QA records, knowledge and merge suggestions", async () => {
    const cli = (...args: string[]) => runCli(["--data-dir", join(dir, "data"), ...args], { env });
    for (const q of ["How do I roll back a deploy?", "How do I roll back the deploy?"]) {
      const r = await cli("qa", "add", "-t", "Deploy", "-q", q, "-a", "deploy rollback --to previous");
      expect(r.code, r.stderr).toBe(0);
    }
    const memory = await ui.api<{
      topics: { name: string; qa_count: number }[];
      qa: unknown[];
      knowledge: unknown[];
      merge: { groups: unknown[] };
    }>("GET", "/databases/vectors/memory");
    expect(memory.status).toBe(200);
    expect(memory.body.topics).toEqual([expect.objectContaining({ name: "Deploy", qa_count: 2 })]);
    expect(memory.body.qa).toHaveLength(2);
    expect(memory.body.knowledge).toEqual([]);
    expect(memory.body.merge.groups).toHaveLength(1);
    // Memory stays out of the document listing.
    const docs = await ui.api<{ total: number }>("GET", "/databases/vectors/documents");
    expect(docs.body.total).toBe(2);
  }, 60_000);

  it("answers unknown endpoints, methods and databases with their own errors", async () => {
    expect((await ui.api("GET", "/nothing")).status).toBe(404);
    expect((await ui.api("PUT", "/databases")).status).toBe(405);
    const missing = await ui.api<{ error: { code: string } }>("GET", "/databases/nope/documents");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("NOT_FOUND");
  });
});
