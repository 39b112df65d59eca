import { type DocumentWrite, StoreError } from "@docdb/store";
import { cosineDistance } from "@docdb/store/contract-suite";
import { expect, it } from "vitest";
import { quoteIdent } from "../src/db.js";
import type { PostgresEngine, PostgresStore } from "../src/index.js";
import { annSearchSql, exactSearchSql } from "../src/vector.js";
import { describeServers, uniqueName } from "./support/servers.js";

function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648 - 0.5;
  };
}

function writesOf(prefix: string, vectors: Float32Array[]): DocumentWrite[] {
  return vectors.map((v, i) => {
    const id = `${prefix}${String(i).padStart(4, "0")}`;
    return {
      document: { id, content: id, contentHash: id, metadata: { i } },
      chunks: [{ id: `${id}c`, idx: 0, text: id, start: 0, end: id.length, vector: v }],
    };
  });
}

const vectorsOf = (n: number, dims: number, seed: number) => {
  const rand = random(seed);
  return Array.from({ length: n }, () => new Float32Array(Array.from({ length: dims }, rand)));
};

const vectorLiteral = (v: Float32Array) => `[${[...v].join(",")}]`;

async function code(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    if (StoreError.isInstance(error)) return error.code;
    throw error;
  }
}

describeServers("postgres vector search", ({ engine }) => {
  it("the one-statement HNSW search runs with the ef_search it sets (pgvector returns at most ef_search rows otherwise)", async () => {
    const e = engine() as PostgresEngine;
    const name = uniqueName("efs");
    const store = (await e.openDatabase(name, { create: true })) as PostgresStore;
    await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: 4 });
    await store.writeDocuments(writesOf("E", vectorsOf(400, 4, 11)));
    const info = await e.info();
    const vs = quoteIdent(info.vectorSchema);
    const t = { schema: quoteIdent(store.schema), vectorType: `${vs}.vector`, cosine: `OPERATOR(${vs}.<=>)` };
    const q = vectorLiteral(new Float32Array([0.3, -0.1, 0.2, 0.4]));
    // Without iterative scans an HNSW scan yields at most ef_search rows: 10 gives 10 of the 30
    // asked for — so the query uses the index and the setting decides. Were the setting ignored,
    // pgvector's default (40) would give 30 each time.
    const run = (efSearch: number) => {
      const s = annSearchSql(t, q, { limit: 30, efSearch, iterative: false });
      return e.db.read<{ id: string; distance: number }>(s.sql, s.params);
    };
    expect(await run(10)).toHaveLength(10);
    expect(await run(25)).toHaveLength(25);
    const rows = await run(64);
    expect(rows).toHaveLength(30);
    // Best first, as the exact scan orders them (up to the graph's approximation).
    for (let i = 1; i < rows.length; i++) expect(Number(rows[i]!.distance)).toBeGreaterThanOrEqual(Number(rows[i - 1]!.distance));
    // The setting is local to the statement's transaction: the session keeps its own.
    const after = await e.db.read<{ ef: string }>("SELECT current_setting('hnsw.ef_search') AS ef");
    expect(after[0]!.ef).toBe("40");
    // The exact statement is a scan, not the index (which the same ORDER BY could use): it
    // agrees with a sort in JavaScript.
    const ex = exactSearchSql(t, q, { limit: 5 });
    const exact = await e.db.read<{ id: string }>(ex.sql, ex.params);
    const qv = new Float32Array([0.3, -0.1, 0.2, 0.4]);
    const brute = vectorsOf(400, 4, 11)
      .map((v, i) => ({ id: `E${String(i).padStart(4, "0")}c`, d: cosineDistance(qv, v) }))
      .sort((x, y) => x.d - y.d || (x.id < y.id ? -1 : 1));
    expect(exact.map((r) => r.id)).toEqual(brute.slice(0, 5).map((b) => b.id));
    // Even where the planner would rather use the index (sequential scans priced out), it cannot.
    const plan = await e.db.transaction(async (client) => {
      await client.query("SET LOCAL enable_seqscan = off");
      const { rows } = await client.query(`EXPLAIN ${ex.sql}`, ex.params);
      return rows.map((r) => r["QUERY PLAN"]).join("\n");
    });
    expect(plan).toContain("chunk_vectors");
    expect(plan).not.toContain("chunk_vectors_hnsw");
  });

  it("exact search keeps the contract's order among chunks at the same distance", async () => {
    const store = await engine().openDatabase(uniqueName("ties"), { create: true });
    await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: 3 });
    // Six chunks with one vector, written in reverse id order, and some farther ones.
    const same = new Float32Array([1, 0, 0]);
    const writes = writesOf("T", [...Array.from({ length: 6 }, () => same), ...vectorsOf(20, 3, 5)]).reverse();
    await store.writeDocuments(writes);
    const hits = await store.vectorSearch(new Float32Array([1, 0, 0]), { limit: 4, exact: true });
    expect(hits.map((h) => h.chunkId)).toEqual(["T0000c", "T0001c", "T0002c", "T0003c"]);
  });

  it("a search sees another process's new model: re-embedded to other dimensions or to the same", async () => {
    const name = uniqueName("cache");
    const a = await engine().openDatabase(name, { create: true });
    const b = await engine().openDatabase(name);
    await a.setEmbeddingInfo({ provider: "p", model: "four", dimensions: 4 });
    const four = vectorsOf(50, 4, 3);
    await a.writeDocuments(writesOf("F", four));
    const q4 = new Float32Array([0.1, 0.2, -0.3, 0.4]);
    const nearest = (vectors: Float32Array[], q: Float32Array, prefix: string) =>
      vectors
        .map((v, i) => ({ id: `${prefix}${String(i).padStart(4, "0")}c`, d: cosineDistance(q, v) }))
        .sort((x, y) => x.d - y.d)
        .slice(0, 5)
        .map((x) => x.id);
    expect((await a.vectorSearch(q4, { limit: 5, exact: true })).map((h) => h.chunkId)).toEqual(nearest(four, q4, "F"));
    expect((await a.vectorSearch(q4, { limit: 5 })).length).toBe(5);

    // Another engine (another process) re-embeds to 6 dimensions.
    await b.setEmbeddingInfo({ provider: "p", model: "six", dimensions: 6 }, { replace: true });
    const six = vectorsOf(50, 6, 9);
    await b.writeVectors(six.map((vector, i) => ({ chunkId: `F${String(i).padStart(4, "0")}c`, vector })));
    const q6 = new Float32Array([0.5, -0.1, 0.2, 0.1, -0.4, 0.3]);
    // Without asking for the model first: the new dimension is found, the new vectors searched.
    expect((await a.vectorSearch(q6, { limit: 5, exact: true })).map((h) => h.chunkId)).toEqual(nearest(six, q6, "F"));
    expect((await a.vectorSearch(q6, { limit: 5 })).map((h) => h.chunkId)).toHaveLength(5);
    // A query of the old dimension is the caller's mistake, named as such (not a server error).
    const old = await a.vectorSearch(q4, { limit: 5 }).catch((error: unknown) => error);
    expect(StoreError.isInstance(old) && old.code).toBe("INVALID_REQUEST");
    expect((old as Error).message).toContain("stores 6");

    // Back to 4 dimensions with another model, while `a` last saw 6: its cached state is
    // wrong in a way only the server notices (the table is of another dimension).
    await b.setEmbeddingInfo({ provider: "p", model: "four-again", dimensions: 4 }, { replace: true });
    const again = vectorsOf(50, 4, 21);
    await b.writeVectors(again.map((vector, i) => ({ chunkId: `F${String(i).padStart(4, "0")}c`, vector })));
    await a.vectorSearch(q6, { limit: 1 }).catch(() => undefined);
    expect((await a.vectorSearch(q4, { limit: 5, exact: true })).map((h) => h.chunkId)).toEqual(nearest(again, q4, "F"));

    // The same dimension, another model, the vectors not written yet: nothing to find, no stale rows.
    await a.vectorSearch(q4, { limit: 5 });
    await b.setEmbeddingInfo({ provider: "p", model: "four-third", dimensions: 4 }, { replace: true });
    expect(await a.vectorSearch(q4, { limit: 5 })).toEqual([]);
    expect(await a.getEmbeddingInfo()).toMatchObject({ model: "four-third", dimensions: 4 });
  });

  it("a search on a database without vectors is empty, and finds vectors another process adds later", async () => {
    const name = uniqueName("later");
    const a = await engine().openDatabase(name, { create: true });
    const b = await engine().openDatabase(name);
    const q = new Float32Array([1, 0, 0]);
    expect(await a.vectorSearch(q, { limit: 3 })).toEqual([]);
    await b.setEmbeddingInfo({ provider: "p", model: "m", dimensions: 3 });
    await b.writeDocuments(writesOf("L", vectorsOf(5, 3, 1)));
    expect(await a.vectorSearch(q, { limit: 3 })).toHaveLength(3);
    // Asked for, the chunks come with the hits (read in the same statement).
    for (const exact of [false, true]) {
      const hits = await a.vectorSearch(q, { limit: 3, exact, withChunks: true });
      expect(hits.map((h) => h.chunk?.id)).toEqual(hits.map((h) => h.chunkId));
      expect(hits[0]!.chunk).toMatchObject({ embedded: true, title: null, metadata: { i: expect.any(Number) } });
    }
    expect(await code(a.vectorSearch(new Float32Array(2), { limit: 3 }))).toBe("INVALID_REQUEST");
  });
});
