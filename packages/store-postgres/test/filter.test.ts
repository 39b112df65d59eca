import { BUILTIN_FIELDS, type Filter, type FilterField, matchesFilter, type Scalar, type Store } from "@docdb/store";
import { beforeAll, expect, it } from "vitest";
import { describeServers, uniqueName } from "./support/servers.js";

/** Seeded PRNG (mulberry32): the same documents and filters on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SCALARS: Scalar[] = [
  0,
  1,
  2,
  -1,
  0.5,
  10,
  1e21,
  "1",
  "a",
  "b",
  "A",
  "ab",
  "é",
  "日本",
  "",
  "true",
  "2026-01-01T00:00:00.000Z",
  true,
  false,
  null,
];
const PATHS: string[][] = [["a"], ["b"], ["a", "b"], ["n", "0"], ["日本"], ["x-y"], ["missing"], ["o", "p", "q"]];

describeServers("filters match matchesFilter", ({ engine }) => {
  let store: Store;
  const docs: Parameters<typeof matchesFilter>[1][] = [];
  const rand = prng(42);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;

  const value = (depth: number): unknown => {
    const r = rand();
    if (depth < 2 && r < 0.15) return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1));
    if (depth < 2 && r < 0.25) return { b: value(depth + 1), p: { q: pick(SCALARS) } };
    return pick(SCALARS);
  };

  beforeAll(async () => {
    store = await engine().openDatabase(uniqueName("filter"), { create: true });
    const writes = [];
    for (let i = 0; i < 150; i++) {
      const metadata: Record<string, unknown> = {};
      for (const k of ["a", "b", "n", "日本", "x-y", "o"]) if (rand() < 0.6) metadata[k] = value(0);
      if (rand() < 0.2) metadata.n = [pick(SCALARS), pick(SCALARS)];
      if (rand() < 0.2) metadata.o = { p: { q: pick(SCALARS) } };
      writes.push({
        document: {
          id: `D${String(i).padStart(4, "0")}`,
          key: rand() < 0.5 ? `key-${i % 7}-${i}` : null,
          title: rand() < 0.7 ? pick(["Alpha", "alpha", "Beta", "日本語", "Ölfarbe", "zeta"]) : null,
          source: rand() < 0.5 ? pick(["docs/a.md", "docs/b.md", "src/x.ts", "Docs/c.md"]) : null,
          collection: rand() < 0.5 ? pick(["c1", "c2"]) : null,
          content: `document ${i}`,
          contentHash: `h${i}`,
          metadata,
        },
        chunks: [],
      });
    }
    await store.writeDocuments(writes);
    for (const s of await store.listDocuments({ limit: 1000 })) {
      docs.push({ ...s, metadata: s.metadata });
    }
    expect(docs).toHaveLength(150);
  });

  const field = (): FilterField => (rand() < 0.7 ? { metadata: pick(PATHS) } : { builtin: pick(BUILTIN_FIELDS) });
  const builtinValue = (): Scalar =>
    pick<Scalar>([...SCALARS, "Alpha", "alpha", "docs/a.md", "c1", "c2", "D0003", docs[0]?.createdAt ?? "", "2000-01-01T00:00:00.000Z"]);
  const leaf = (): Filter => {
    const f = field();
    const v = "builtin" in f ? builtinValue : () => pick(SCALARS);
    switch (pick(["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "exists", "prefix"] as const)) {
      case "eq":
        return { op: "eq", field: f, value: v() };
      case "ne":
        return { op: "ne", field: f, value: v() };
      case "in":
        return { op: "in", field: f, values: [v(), v(), v()] };
      case "nin":
        return { op: "nin", field: f, values: [v(), v()] };
      case "exists":
        return { op: "exists", field: f, value: rand() < 0.5 };
      case "prefix":
        return { op: "prefix", field: f, value: pick(["", "a", "A", "d", "docs/", "日", "2026", "1"]) };
      default:
        return { op: pick(["gt", "gte", "lt", "lte"] as const), field: f, value: v() };
    }
  };
  const tree = (depth: number): Filter => {
    const r = rand();
    if (depth > 2 || r < 0.5) return leaf();
    if (r < 0.7) return { and: [tree(depth + 1), tree(depth + 1)] };
    if (r < 0.9) return { or: [tree(depth + 1), tree(depth + 1)] };
    return { not: tree(depth + 1) };
  };

  it("gives the reference result for 400 random filters", async () => {
    for (let i = 0; i < 400; i++) {
      const filter = tree(0);
      const expected = docs.filter((d) => matchesFilter(filter, d)).map((d) => d.id);
      const got = (await store.listDocuments({ limit: 1000, filter })).map((d) => d.id);
      expect({ filter, ids: got }).toEqual({ filter, ids: expected });
    }
  });

  it("handles the edge cases the contract spells out", async () => {
    const s = await engine().openDatabase(uniqueName("edge"), { create: true });
    const meta: Record<string, Record<string, unknown>> = {
      num: { v: 1 },
      float: { v: 1.0 },
      str: { v: "1" },
      bool: { v: true },
      nul: { v: null },
      arr: { v: [2, "x", null] },
      nested: { v: [[1]] },
      obj: { v: { w: 1 } },
      idx: { v: [5, 6] },
      none: {},
    };
    await s.writeDocuments(
      Object.entries(meta).map(([id, metadata]) => ({ document: { id, content: id, contentHash: id, metadata }, chunks: [] })),
    );
    const ids = async (filter: Filter) => (await s.listDocuments({ limit: 100, filter })).map((d) => d.id).sort();
    const v = { metadata: ["v"] };
    expect(await ids({ op: "eq", field: v, value: 1 })).toEqual(["float", "num"]);
    expect(await ids({ op: "eq", field: v, value: true })).toEqual(["bool"]);
    expect(await ids({ op: "eq", field: v, value: null })).toEqual(["arr", "nul"]);
    expect(await ids({ op: "eq", field: v, value: 2 })).toEqual(["arr"]);
    expect(await ids({ op: "ne", field: v, value: 1 })).toEqual(["arr", "bool", "idx", "nested", "none", "nul", "obj", "str"]);
    expect(await ids({ op: "exists", field: v, value: true })).toHaveLength(9);
    expect(await ids({ op: "exists", field: { metadata: ["v", "w"] }, value: true })).toEqual(["obj"]);
    expect(await ids({ op: "exists", field: { metadata: ["v", "0"] }, value: true })).toEqual([]);
    expect(await ids({ op: "gt", field: v, value: 0 })).toEqual(["arr", "float", "idx", "num"]);
    expect(await ids({ op: "lt", field: v, value: "2" })).toEqual(["str"]);
    expect(await ids({ op: "prefix", field: v, value: "" })).toEqual(["arr", "str"]);
    expect(await ids({ op: "nin", field: v, values: [1, true] })).toEqual(["arr", "idx", "nested", "none", "nul", "obj", "str"]);
    expect(await ids({ not: { op: "gt", field: { builtin: "key" }, value: "a" } })).toHaveLength(10);
    expect(await ids({ op: "eq", field: { builtin: "key" }, value: null })).toHaveLength(10);
    for (const [id, metadata] of Object.entries(meta)) {
      const doc = { id, key: null, title: null, source: null, collection: null, createdAt: "", updatedAt: "", metadata };
      for (const filter of [{ op: "eq", field: v, value: 1 } as Filter, { op: "gt", field: v, value: 0 } as Filter]) {
        expect((await ids(filter)).includes(id)).toBe(matchesFilter(filter, doc));
      }
    }
  });
});
