// The embedding lease in one process and across two: concurrent `embedPending` runs over one
// SQLite database embed each pending chunk once (a fake OpenAI server counts the inputs).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../../../test/support/fake-openai.js";
import { type DocDB, openDocDB, silentLogger } from "../src/index.js";

let dataDir: string;
let openai: FakeOpenAI;
const opened: DocDB[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "docdb-embed-lease-"));
  openai = await startFakeOpenAI({ dimensions: 16, delayMs: 300 });
});
afterAll(async () => {
  for (const docdb of opened) await docdb.close();
  await openai.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function open(withModel: boolean): DocDB {
  const embedding = withModel ? { provider: "openai" as const, apiKey: "sk-test", baseURL: openai.url, dimensions: 16 } : null;
  const docdb = openDocDB({ dataDir, embedding, logger: silentLogger() });
  opened.push(docdb);
  return docdb;
}

describe("the embedding lease", () => {
  it("runs at once in one process and in two embed each pending chunk once; the waiting ones find nothing left", async () => {
    const writer = await open(false).database("lease", { create: true });
    for (let i = 0; i < 40; i++) await writer.insertDocument({ text: `Pending note ${i}: lease ${i * 31}` });
    expect((await writer.status()).pending).toBe(40);
    const [first, second] = [open(true), open(true)];
    const before = openai.requests.length;
    const runs = await Promise.all([
      (await first.database("lease")).embedPending({ batch_size: 8 }),
      (await first.database("lease")).embedPending({ batch_size: 8 }),
      (await second.database("lease")).embedPending({ batch_size: 8 }),
    ]);
    const inputs = openai.requests.slice(before).flatMap((r) => r.input);
    expect(inputs.length).toBe(40);
    expect(new Set(inputs).size).toBe(40);
    expect(runs.reduce((n, r) => n + r.embedded, 0)).toBe(40);
    expect(runs.map((r) => r.remaining)).toEqual([0, 0, 0]);
  });

  it("a run asked to skip a database another run holds answers at once with leased_elsewhere", async () => {
    const writer = await open(false).database("skip", { create: true });
    for (let i = 0; i < 10; i++) await writer.insertDocument({ text: `Skip note ${i}` });
    const holder = open(true);
    const requestsBefore = openai.requests.length;
    const running = (await holder.database("skip")).embedPending({ batch_size: 2 });
    // Once the first run's first batch is at the (slow) provider, it holds the lease.
    while (openai.requests.length === requestsBefore) await new Promise((resolve) => setImmediate(resolve));
    const answer = await (await open(true).database("skip")).embedPending({ when_leased: "skip" });
    expect(answer).toMatchObject({ embedded: 0, leased_elsewhere: true });
    expect((await running).embedded).toBe(10);
  });
});
