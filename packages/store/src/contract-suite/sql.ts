// Read-only SQL over the documented views: refusals, maxRows, and the portable subset every engine
// answers alike.
import { describe, expect, it } from "vitest";
import { sqlRowBytes } from "../sql-bytes.js";
import type { Store } from "../types.js";
import { type ContractContext, expectStoreError } from "./context.js";
import { makeDocument, unit } from "./fixtures.js";

export function sqlContract(ctx: ContractContext): void {
  const { fresh } = ctx;
  describe("read-only SQL over the documented views", () => {
    const sqlOf =
      (store: Store) =>
      (sql: string, maxRows = 100) => {
        expect(typeof store.querySql, "the engine answers querySql").toBe("function");
        return (store.querySql as NonNullable<Store["querySql"]>).call(store, sql, { maxRows, timeoutMs: 5000 });
      };

    it("answers SELECTs over the documented views, cuts at maxRows, refuses writes and leaves the data alone", async () => {
      expect(ctx.engine.capabilities.readOnlySql).toBe(true);
      const store = await fresh();
      const run = sqlOf(store);
      await store.writeDocuments([
        makeDocument(["東京は日本の首都です。"], { metadata: { lang: "ja" }, key: "k1" }),
        makeDocument(["Paris is the capital of France.", "It lies on the Seine."], { metadata: { lang: "en" } }),
      ]);
      const byLang = await run("SELECT metadata ->> 'lang' AS lang, count(*) AS n FROM documents_v GROUP BY 1 ORDER BY 1");
      expect(byLang).toEqual({
        columns: ["lang", "n"],
        rows: [
          ["en", 1],
          ["ja", 1],
        ],
        truncated: false,
      });
      const chunks = await run("SELECT idx, text, embedded FROM chunks_v ORDER BY doc_id, idx", 2);
      expect(chunks.rows).toHaveLength(2);
      expect(chunks.truncated).toBe(true);
      expect((await run("SELECT key, length FROM documents_v WHERE key IS NOT NULL")).rows).toEqual([
        ["k1", "東京は日本の首都です。".length],
      ]);
      expect((await run("SELECT count(*) AS n FROM collections_v")).rows).toEqual([[0]]);
      expect((await run("SELECT count(*) AS n FROM files_v")).rows).toEqual([[0]]);
      expect(await run("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c", 3)).toEqual({
        columns: ["x"],
        rows: [[1], [2], [3]],
        truncated: true,
        truncatedBy: "rows",
      });
      for (const sql of [
        "DELETE FROM documents",
        "DROP VIEW documents_v",
        "SELECT 1; DELETE FROM documents",
        "WITH gone AS (DELETE FROM documents RETURNING id) SELECT count(*) FROM gone",
        "UPDATE documents SET title = 'x'",
        "SELECT nope FROM documents_v",
        "",
      ]) {
        await expectStoreError(run(sql), "INVALID_REQUEST");
      }
      expect((await store.counts()).documents).toBe(2);
      expect((await run("SELECT count(*) AS n FROM documents_v WHERE title IS NOT NULL")).rows).toEqual([[2]]);
    });

    it("caps a result by bytes: rows that fit, truncatedBy bytes; a first row over the cap is INVALID_REQUEST", async () => {
      const store = await fresh();
      const query = (sql: string, maxRows: number, maxBytes: number) =>
        (store.querySql as NonNullable<Store["querySql"]>).call(store, sql, { maxRows, timeoutMs: 5000, maxBytes });
      // Portable: a 2^k-character string by doubling in a recursive CTE, then many rows of it.
      const rowsOf = (power: number, count: number) =>
        `WITH RECURSIVE s(t, n) AS (SELECT CAST('x' AS TEXT), 0 UNION ALL SELECT t || t, n + 1 FROM s WHERE n < ${power}), ` +
        `g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < ${count}) SELECT g.i AS i, s.t AS t FROM g, s WHERE s.n = ${power} ORDER BY g.i`;
      const rowSize = sqlRowBytes([1, "x".repeat(1024)]);
      const started = Date.now();
      const cut = await query(rowsOf(10, 3000), 2000, 10 * rowSize + 5);
      expect(cut.truncated).toBe(true);
      expect(cut.truncatedBy).toBe("bytes");
      expect(cut.rows).toHaveLength(10);
      expect(cut.rows[9]).toEqual([10, "x".repeat(1024)]);
      const fits = await query(rowsOf(10, 5), 2000, 64 * 1024);
      expect(fits.rows).toHaveLength(5);
      expect(fits.truncated).toBe(false);
      expect(fits.truncatedBy).toBeUndefined();
      const byRows = await query(rowsOf(10, 50), 3, 64 * 1024);
      expect([byRows.rows.length, byRows.truncated, byRows.truncatedBy]).toEqual([3, true, "rows"]);
      const tooLarge = await expectStoreError(query(rowsOf(16, 2), 10, 64 * 1024), "INVALID_REQUEST");
      expect(tooLarge.message).toMatch(/65536-byte result cap \(max_bytes\)/);
      expect(Date.now() - started).toBeLessThan(5000);
    });

    it("gives the same rows on every engine for the portable SQL subset", async () => {
      const store = await fresh();
      const run = sqlOf(store);
      await store.createCollection({ name: "docs", description: "Project docs", source: "/srv/docs", enabled: true });
      const at = (day: number) => `2026-01-${String(day).padStart(2, "0")}T10:00:00.000Z`;
      const guide = makeDocument(["# Guide\nInstall it.", "Run it."], {
        id: "doc-guide",
        title: "Guide",
        createdAt: at(3),
        updatedAt: at(3),
      });
      guide.chunks[0] = { ...guide.chunks[0], heading: "Guide", lineStart: 1, lineEnd: 2 } as (typeof guide.chunks)[0];
      await store.writeDocuments([
        {
          ...guide,
          file: {
            collection: "docs",
            record: { path: "guide.md", size: 1234, mtime: 1767225600000, contentHash: "h-guide", chunking: "c1" },
          },
        },
        makeDocument(["東京は日本の首都です。"], {
          id: "doc-tokyo",
          title: "東京",
          key: "notes/tokyo",
          metadata: { lang: "ja", year: 2026, author: { name: "Aiko" }, tags: ["city", "japan"] },
          createdAt: at(1),
          updatedAt: at(1),
        }),
        makeDocument(["Paris is the capital of France.", "It lies on the Seine.", "PARIS has many museums."], {
          id: "doc-paris",
          title: "Paris",
          metadata: { lang: "en", year: 2024, author: { name: "Ben" }, tags: ["city"] },
          createdAt: at(2),
          updatedAt: at(2),
        }),
      ]);
      await store.setEmbeddingInfo({ provider: "test", model: "m", dimensions: 2 });
      const paris = await store.getChunks("doc-paris");
      await store.writeVectors(paris.slice(0, 2).map((c) => ({ chunkId: c.id, vector: unit([1, 0]) })));

      const cases: [string, unknown[][]][] = [
        // a breakdown by collection
        [
          "SELECT coalesce(collection, '-') AS collection, count(*) AS docs FROM documents_v GROUP BY 1 ORDER BY 1",
          [
            ["-", 2],
            ["docs", 1],
          ],
        ],
        // the newest documents
        [
          "SELECT id, title, created_at FROM documents_v ORDER BY created_at DESC, id LIMIT 2",
          [
            ["doc-guide", "Guide", at(3)],
            ["doc-paris", "Paris", at(2)],
          ],
        ],
        // JSON metadata: a member, a number, a nested member, an array element
        ["SELECT id FROM documents_v WHERE metadata ->> 'lang' = 'ja'", [["doc-tokyo"]]],
        [
          "SELECT id, CAST(metadata ->> 'year' AS INTEGER) AS year FROM documents_v WHERE CAST(metadata ->> 'year' AS INTEGER) >= 2020 ORDER BY year DESC",
          [
            ["doc-tokyo", 2026],
            ["doc-paris", 2024],
          ],
        ],
        [
          "SELECT metadata -> 'author' ->> 'name' AS author, metadata -> 'tags' ->> 0 AS first_tag FROM documents_v WHERE metadata ->> 'author' IS NOT NULL ORDER BY author",
          [
            ["Aiko", "city"],
            ["Ben", "city"],
          ],
        ],
        // chunks per document with their embedded count
        [
          "SELECT d.title AS title, count(c.id) AS chunks, sum(c.embedded) AS embedded FROM documents_v d JOIN chunks_v c ON c.doc_id = d.id GROUP BY d.title ORDER BY d.title",
          [
            ["Guide", 2, 0],
            ["Paris", 3, 2],
            ["東京", 1, 0],
          ],
        ],
        ["SELECT count(*) AS waiting FROM chunks_v WHERE embedded = 0", [[4]]],
        // case-insensitive text search, lengths, offsets, headings and lines
        ["SELECT count(*) AS n FROM chunks_v WHERE lower(text) LIKE '%paris%'", [[2]]],
        [
          `SELECT idx, start, "end", heading, line_start, line_end, length(text) AS chars FROM chunks_v WHERE doc_id = 'doc-guide' ORDER BY idx`,
          [
            [0, 0, 19, "Guide", 1, 2, 19],
            [1, 20, 27, null, null, null, 7],
          ],
        ],
        [
          "SELECT id, length, key FROM documents_v WHERE key = 'notes/tokyo'",
          [["doc-tokyo", "東京は日本の首都です。".length, "notes/tokyo"]],
        ],
        // collections and files
        ["SELECT name, description, source, enabled, last_import_at FROM collections_v", [["docs", "Project docs", "/srv/docs", 1, null]]],
        [
          "SELECT f.collection AS collection, f.path AS path, f.size AS size, f.mtime AS mtime, f.content_hash AS hash, f.chunking AS chunking, d.title AS title FROM files_v f JOIN documents_v d ON d.id = f.doc_id",
          [["docs", "guide.md", 1234, 1767225600000, "h-guide", "c1", "Guide"]],
        ],
        // expressions: CASE, substr, ||, integer division, a day out of a timestamp, a window function
        [
          "SELECT substr(created_at, 1, 10) AS day, upper(title) || '!' AS shout, CASE WHEN length > 30 THEN 'long' ELSE 'short' END AS size, length / 10 AS tens, row_number() OVER (ORDER BY created_at) AS n FROM documents_v ORDER BY created_at",
          [
            ["2026-01-01", "東京!", "short", 1, 1],
            ["2026-01-02", "PARIS!", "long", 7, 2],
            ["2026-01-03", "GUIDE!", "short", 2, 3],
          ],
        ],
        [
          "VALUES (1, 'a'), (2, NULL)",
          [
            [1, "a"],
            [2, null],
          ],
        ],
        ["SELECT count(DISTINCT collection) AS n, min(created_at) AS first, max(updated_at) AS last FROM documents_v", [[1, at(1), at(3)]]],
      ];
      for (const [sql, rows] of cases) {
        const result = await run(sql);
        expect(result.rows, sql).toEqual(rows);
        expect(result.truncated, sql).toBe(false);
      }
      // Column names are the aliases given (compute columns AS a name: unnamed ones differ by engine).
      expect((await run("SELECT count(*) AS n, max(idx) AS top FROM chunks_v")).columns).toEqual(["n", "top"]);
      expect((await run("SELECT * FROM documents_v LIMIT 1")).columns).toEqual([
        "id",
        "key",
        "title",
        "source",
        "collection",
        "metadata",
        "created_at",
        "updated_at",
        "length",
      ]);
      // JSON columns read back as JSON text (its spacing and key order may differ by engine).
      const [metadata] = (await run("SELECT metadata FROM documents_v WHERE id = 'doc-tokyo'")).rows[0] as [string];
      expect(JSON.parse(metadata)).toEqual({ lang: "ja", year: 2026, author: { name: "Aiko" }, tags: ["city", "japan"] });
    });
  });
}
