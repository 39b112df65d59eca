import { buildKeywordQuery } from "@docdb/analyzer";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createPostgresEngine } from "../src/index.js";
import { type PgliteServer, startPgliteServer } from "./support/pglite-server.js";

let server: PgliteServer;
beforeAll(async () => {
  server = await startPgliteServer();
});
afterAll(async () => {
  await server?.stop();
});

it("smoke", async () => {
  const engine = createPostgresEngine({ url: server.url, pool: { max: 4 } });
  const store = await engine.openDatabase("Test", { create: true });
  expect(await engine.listDatabases()).toEqual(["Test"]);
  await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: 3 });
  const r = await store.writeDocuments([
    {
      document: {
        id: "D1",
        key: "k",
        title: "Hello world",
        content: "The quick brown fox. 東京の人口",
        contentHash: "h",
        metadata: { a: [1, 2] },
      },
      chunks: [{ id: "C1", idx: 0, text: "The quick brown fox jumps. 東京の人口", start: 0, end: 10, vector: new Float32Array([1, 0, 0]) }],
    },
  ]);
  console.log(r, await store.counts());
  console.log(await store.keywordSearch(buildKeywordQuery("quick fox")!, { limit: 10 }));
  console.log(
    await store.keywordSearch(buildKeywordQuery("東京の人口")!, { limit: 10, filter: { op: "eq", field: { metadata: ["a"] }, value: 2 } }),
  );
  console.log(await store.vectorSearch(new Float32Array([1, 1, 0]), { limit: 10 }));
  console.log(await store.vectorSearch(new Float32Array([1, 1, 0]), { limit: 10, exact: true }));
  console.log(await store.listDocuments({ limit: 10 }), await store.changeToken());
  await engine.close();
});
