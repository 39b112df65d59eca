// One deadline per operation, and counts of one's own work: store_qa's inserts share the insert
// deadline (a stalled provider is asked once, not once per insert), and an import's `embedded`
// counts only its collection's chunks when other writers' pending chunks are embedded with them.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../../../test/support/fake-openai.js";
import { startStallingServer } from "../../../test/support/stalling-server.js";
import { openDocDB, silentLogger } from "../src/index.js";

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "docdb-core-deadlines-"));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("store_qa under one deadline", () => {
  it.each(["silent", "after-headers"] as const)(
    "a provider that is %s: the topic's insert uses the deadline up, the question is stored pending without another call",
    async (stall) => {
      const provider = await startStallingServer(stall);
      const docdb = openDocDB({
        dataDir: mkdtempSync(join(scratch, "qa-")),
        embedding: { provider: "openai", apiKey: "sk-test", baseURL: `${provider.url}/v1`, dimensions: 32 },
        embedDeadlineMs: 300,
        logger: silentLogger(),
      });
      try {
        const db = await docdb.database("vectors", { create: true });
        const stored = await db.memory.storeQa({ question: "Who keeps the tide tables?", answer: "The harbour master.", topic: "Harbour" });
        expect(stored).toMatchObject({ topic_created: true, embedded: false });
        expect(stored.warnings.join(" ")).toMatch(/did not answer within 0\.3 s/);
        // One call (the topic's); without a shared deadline the question's insert waits its own.
        expect(provider.received).toBe(1);
        // Nothing lost: topic and question are stored, found by keywords, and wait to be embedded.
        const status = await db.status();
        expect(status.memory).toMatchObject({ documents: 2, pending: 2 });
        const found = await db.memory.queryQa({ question: "tide tables" });
        expect(found.results.map((r) => r.id)).toEqual([stored.qa_id]);
      } finally {
        await docdb.close();
        await provider.close();
      }
    },
  );
});

describe("import --json counts its own chunks", () => {
  let server: FakeOpenAI;
  beforeAll(async () => {
    server = await startFakeOpenAI({ dimensions: 32 });
  });
  afterAll(() => server.close());

  it("`embedded` leaves out another writer's pending chunks, which the import embeds too", async () => {
    const dataDir = mkdtempSync(join(scratch, "import-"));
    const embedding = { provider: "openai" as const, apiKey: "sk-test", baseURL: server.url, dimensions: 32 };
    const importer = openDocDB({ dataDir, embedding, logger: silentLogger() });
    // Another writer without a model: its documents wait, pending, in the same database.
    const other = openDocDB({ dataDir, embedding: { provider: "none" }, logger: silentLogger() });
    try {
      const db = await importer.database("vectors", { create: true });
      const writer = await other.database("vectors");
      for (let i = 0; i < 5; i++) await writer.insertDocument({ text: `Note ${i} from another agent about the lighthouse.` });
      expect((await db.status()).pending).toBe(5);

      const folder = mkdtempSync(join(scratch, "files-"));
      writeFileSync(join(folder, "a.md"), "# Harbour\n\nThe harbour master keeps the tide tables.\n");
      writeFileSync(join(folder, "b.md"), "# Ships\n\nEvery ship is logged when it passes the cape.\n");
      await db.collections.add({ name: "port", description: "port notes", source: folder });
      // A writer that keeps writing while the import embeds.
      let concurrent: Promise<unknown> | undefined;
      const summary = await db.collections.import("port", {
        onProgress: (progress) => {
          if (progress.phase === "embed" && !concurrent) concurrent = writer.insertDocument({ text: "One more note, written meanwhile." });
        },
      });
      await concurrent;
      expect(summary.added).toBe(2);
      expect(summary.embedded).toBe(summary.chunks);
      expect(summary.pending).toBe(0);
      // The other writer's five were embedded by the same run, just not counted as the import's.
      const status = await db.status();
      expect(status.embedded).toBeGreaterThanOrEqual(summary.chunks + 5);
    } finally {
      await importer.close();
      await other.close();
    }
  });
});
