import { execFileSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Store, VectorIndexStatus } from "@docdb/store";
import { makeDocument, random, randomUnit } from "@docdb/store/contract-suite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runNode } from "../../../test/support/node-process.js";
import { createSqliteEngine } from "../src/index.js";

// A damaged vector index file is found by its checksum before usearch reads it, set aside, and
// built again in the background while queries scan exactly. Real SQLite, real usearch; the
// 100 damaged files are opened in a child process so that a crash inside usearch fails the test.
const DIST = fileURLToPath(new URL("../dist/index.js", import.meta.url));
const DIMS = 16;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "docdb-damage-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Threshold 1: every query takes the HNSW path. */
const engine = () => createSqliteEngine({ dataDir: dir, vectorIndex: { threshold: 1 } });

async function fill(store: Store, count: number, seed: number): Promise<void> {
  await store.setEmbeddingInfo({ provider: "p", model: "m", dimensions: DIMS });
  const next = random(seed);
  const docs = Array.from({ length: count }, (_, i) => makeDocument([`passage ${i}`], {}, () => ({ vector: randomUnit(next, DIMS) })));
  for (let i = 0; i < docs.length; i += 200) await store.writeDocuments(docs.slice(i, i + 200));
}

/** A database of `count` vectors with its index built and written; returns the index file. */
async function indexed(name: string, count: number): Promise<string> {
  const e = engine();
  const store = await e.openDatabase(name, { create: true });
  await fill(store, count, 1);
  await store.vectorSearch(randomUnit(random(2), DIMS), { limit: 1 });
  expect(await store.vectorIndex?.status()).toMatchObject({ state: "ready", indexed: count });
  await e.close();
  return join(dir, `${name}.db.hnsw`);
}

const asideFiles = (file: string) => readdirSync(dir).filter((n) => n.startsWith(`${file.split("/").pop()}.corrupt-`));

describe("a damaged vector index file", () => {
  it("damaged in 100 random places (one at a time, same size): no crash, exact answers, set aside and rebuilt", async () => {
    if (!existsSync(DIST)) throw new Error(`${DIST} is missing: run \`pnpm build\` first (the child uses the built engine)`);
    const file = await indexed("v", 2000);
    copyFileSync(file, join(dir, "pristine"));
    copyFileSync(`${file}.json`, join(dir, "pristine.json"));
    const script = join(dir, "damage.mjs");
    writeFileSync(
      script,
      `import { copyFileSync, openSync, readdirSync, readSync, rmSync, statSync, writeSync, closeSync } from "node:fs";
      import { join } from "node:path";
      import { createSqliteEngine } from ${JSON.stringify(DIST)};
      const dir = ${JSON.stringify(dir)};
      const file = join(dir, "v.db.hnsw");
      let state = 20231;
      const next = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 4294967296);
      const size = statSync(join(dir, "pristine")).size;
      for (let t = 0; t < 100; t++) {
        for (const n of readdirSync(dir)) if (n.includes(".corrupt-")) rmSync(join(dir, n), { recursive: true, force: true });
        copyFileSync(join(dir, "pristine"), file);
        copyFileSync(join(dir, "pristine.json"), file + ".json");
        // A few bytes overwritten at a random place, each one changed.
        const at = Math.floor(next() * (size - 8));
        const length = 1 + Math.floor(next() * 8);
        const fd = openSync(file, "r+");
        const bytes = Buffer.alloc(length);
        readSync(fd, bytes, 0, length, at);
        for (let i = 0; i < length; i++) bytes[i] = bytes[i] ^ (1 + Math.floor(next() * 255));
        writeSync(fd, bytes, 0, length, at);
        closeSync(fd);
        const probe = Float32Array.from({ length: ${DIMS} }, () => next() * 2 - 1);
        const e = createSqliteEngine({ dataDir: dir, vectorIndex: { threshold: 1 } });
        const store = await e.openDatabase("v");
        const found = await store.vectorSearch(probe, { limit: 10 });
        const exact = await store.vectorSearch(probe, { limit: 10, exact: true });
        const during = await store.vectorIndex.status();
        await e.close();
        const again = createSqliteEngine({ dataDir: dir, vectorIndex: { threshold: 1 } });
        const after = await (await again.openDatabase("v")).vectorIndex.status();
        await again.close();
        const same = JSON.stringify(found) === JSON.stringify(exact);
        console.log(JSON.stringify({ t, at, same, during: during.damaged, after: { state: after.state, indexed: after.indexed, damaged: after.damaged } }));
      }`,
    );
    const result = await runNode(script, [], { env: { ...process.env } });
    const lines = result.stdout
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { t: number; same: boolean; during?: VectorIndexStatus["damaged"]; after: Partial<VectorIndexStatus> });
    expect(result.code, `the child ended with ${result.code} after ${lines.length} files: ${result.stderr.slice(-2000)}`).toBe(0);
    expect(lines).toHaveLength(100);
    for (const line of lines) {
      expect(line.same, `file ${line.t}: the answer is the exact one`).toBe(true);
      expect(line.during, `file ${line.t}`).toMatchObject({
        reason: expect.stringMatching(/checksum/),
        setAside: expect.stringContaining(".corrupt-"),
      });
      expect(line.after, `file ${line.t}`).toMatchObject({ state: "ready", indexed: 2000, damaged: { rebuilt: true } });
    }
    // Every damaged file was set aside with a warning, never deleted.
    expect(result.stderr.match(/set aside as/g)).toHaveLength(100);
    expect(asideFiles(file).filter((n) => !n.endsWith(".json"))).toHaveLength(1);
  }, 180_000);

  it("truncated, overwritten, or a directory in its place: answers exactly, set aside, rebuilt on close", async () => {
    const file = await indexed("d", 400);
    const damage: [string, RegExp][] = [
      ["truncated", /is \d+ bytes, its description says/],
      ["overwritten", /checksum/],
      ["directory", /is a directory/],
    ];
    const probe = randomUnit(random(7), DIMS);
    for (const [kind, reason] of damage) {
      // Rebuilt files differ in size (the graph is built on several threads).
      const size = statSync(file).size;
      if (kind === "truncated") writeFileSync(file, readFileSync(file).subarray(0, Math.floor(size / 2)));
      if (kind === "overwritten") writeFileSync(file, Buffer.alloc(size, 0xa5));
      if (kind === "directory") {
        rmSync(file);
        mkdirSync(file);
        writeFileSync(join(file, "inside"), "x");
      }
      const e = engine();
      const store = await e.openDatabase("d");
      const warnings: string[] = [];
      const write = process.stderr.write;
      process.stderr.write = ((chunk: string) => warnings.push(String(chunk)) > 0) as typeof process.stderr.write;
      let found: Awaited<ReturnType<Store["vectorSearch"]>>;
      try {
        found = await store.vectorSearch(probe, { limit: 10 });
      } finally {
        process.stderr.write = write;
      }
      expect(found).toEqual(await store.vectorSearch(probe, { limit: 10, exact: true }));
      expect(warnings.join(""), kind).toMatch(/set aside as .*\.corrupt-/);
      const status = await store.vectorIndex?.status();
      expect(status?.damaged, kind).toMatchObject({ reason: expect.stringMatching(reason) });
      const setAside = status?.damaged?.setAside as string;
      expect(existsSync(setAside)).toBe(true);
      if (kind === "directory") expect(readFileSync(join(setAside, "inside"), "utf8")).toBe("x");
      await e.close();
      const again = engine();
      const reopened = await again.openDatabase("d");
      expect(await reopened.vectorIndex?.status()).toMatchObject({ state: "ready", indexed: 400, damaged: { rebuilt: true, setAside } });
      await again.close();
      expect(statSync(file).isFile()).toBe(true);
    }
  });

  it("a directory in place of the description, or of the file before a rebuild, is moved aside (no EISDIR)", async () => {
    const file = await indexed("h", 300);
    rmSync(`${file}.json`);
    mkdirSync(`${file}.json`);
    const e = engine();
    const store = await e.openDatabase("h");
    expect(await store.vectorSearch(randomUnit(random(3), DIMS), { limit: 5 })).toHaveLength(5);
    expect(await store.vectorIndex?.status()).toMatchObject({ state: "ready", indexed: 300 });
    expect(statSync(`${file}.json`).isFile()).toBe(true);
    rmSync(file);
    mkdirSync(file);
    expect(await store.vectorIndex?.rebuild({})).toMatchObject({ state: "ready", indexed: 300 });
    expect(statSync(file).isFile()).toBe(true);
    expect(readdirSync(dir).filter((n) => n.includes(".corrupt-") && !n.endsWith(".json"))).toHaveLength(2);
    // Dropping the database removes what was set aside with it.
    expect(await e.dropDatabase("h")).toBe(true);
    expect(readdirSync(dir).filter((n) => n.startsWith("h.db"))).toEqual([]);
    await e.close();
  });

  it("a file from before checksums (description format 1), or with an unreadable description, is not trusted: built again", async () => {
    const file = await indexed("old", 300);
    const header = JSON.parse(readFileSync(`${file}.json`, "utf8"));
    const { checksum: _, ...old } = header;
    writeFileSync(`${file}.json`, JSON.stringify({ ...old, format: 1, sample: "x" }));
    const e = engine();
    const store = await e.openDatabase("old");
    expect(await store.vectorIndex?.status()).toMatchObject({ state: "missing" });
    await store.vectorSearch(randomUnit(random(4), DIMS), { limit: 5 });
    const status = await store.vectorIndex?.status();
    expect(status).toMatchObject({ state: "ready", indexed: 300 });
    expect(status?.damaged).toBeUndefined();
    expect(JSON.parse(readFileSync(`${file}.json`, "utf8")).checksum).toMatch(/^sha256:[0-9a-f]{64}$/);
    await e.close();
    writeFileSync(`${file}.json`, "{ not json");
    const again = engine();
    const reopened = await again.openDatabase("old");
    expect(await reopened.vectorSearch(randomUnit(random(5), DIMS), { limit: 5 })).toHaveLength(5);
    expect(await reopened.vectorIndex?.status()).toMatchObject({ state: "ready", indexed: 300 });
    await again.close();
  });
  it("a damaged file that cannot be moved aside (read-only folder): exact answers, a warning saying what to do, set aside once it can be", async (context) => {
    const file = await indexed("ro", 300);
    writeFileSync(file, Buffer.alloc(statSync(file).size, 0xa5));
    // The folder read-only; root ignores that, so the file itself is made immutable for root.
    const root = process.getuid?.() === 0;
    const lock = (on: boolean) => {
      if (!root) chmodSync(dir, on ? 0o555 : 0o755);
      else execFileSync("chattr", [on ? "+i" : "-i", file], { stdio: "ignore" });
    };
    try {
      lock(true);
    } catch {
      context.skip("cannot make the index file unmovable here (chattr +i needs root on a file system that supports it)");
    }
    const probe = randomUnit(random(8), DIMS);
    const warnings: string[] = [];
    let e = createSqliteEngine({ dataDir: dir, vectorIndex: { threshold: 1 } });
    try {
      const store = await e.openDatabase("ro");
      const write = process.stderr.write;
      process.stderr.write = ((chunk: string) => warnings.push(String(chunk)) > 0) as typeof process.stderr.write;
      try {
        expect(await store.vectorSearch(probe, { limit: 10 })).toEqual(await store.vectorSearch(probe, { limit: 10, exact: true }));
      } finally {
        process.stderr.write = write;
      }
      expect(warnings.join("")).toMatch(
        /the vector index .*ro\.db\.hnsw does not match the checksum in its description \(damaged\), and it could not be moved aside \(.*\): queries scan exactly until it is moved or removed; check that .* is writable/,
      );
      expect(await store.vectorIndex?.status()).toMatchObject({ damaged: { setAside: null, rebuilt: false } });
      expect(asideFiles(file)).toEqual([]);
      await e.close();
    } finally {
      lock(false);
    }
    // Once it can be moved, the next open sets it aside and builds it again.
    e = engine();
    const store = await e.openDatabase("ro");
    expect(await store.vectorSearch(probe, { limit: 10 })).toEqual(await store.vectorSearch(probe, { limit: 10, exact: true }));
    expect(asideFiles(file).filter((n) => !n.endsWith(".json"))).toHaveLength(1);
    await e.close();
  });
});
