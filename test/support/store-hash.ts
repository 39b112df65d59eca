import { createHash } from "node:crypto";

/** The reads of the Store contract (`@docdb/store`) this helper uses. */
export interface HashableStore {
  getEmbeddingInfo(): Promise<unknown>;
  listDocuments(options: { limit: number; offset?: number }): Promise<{ id: string }[]>;
  getDocument(id: string): Promise<object | undefined>;
  exportChunks(docId: string): Promise<object[]>;
  listCollections(): Promise<{ name: string }[]>;
  listFiles(collection: string): Promise<object[]>;
}

/** The named fields of a row, in that order. */
function pick(row: object | undefined, names: string[]): unknown[] {
  const fields = (row ?? {}) as Record<string, unknown>;
  return names.map((name) => {
    const value = fields[name];
    if (value instanceof Float32Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("hex");
    // Times as instants: engines print the same one differently.
    if (/At$/.test(name)) return typeof value === "string" ? Date.parse(value) : null;
    return value ?? null;
  });
}

/**
 * sha256 over every table of a database as the Store contract shows it: the embedding model;
 * documents with content, metadata and times; chunks with text, offsets, embedded state, input
 * hash and vector bytes; collections with their settings; file rows. Equal hashes: equal databases.
 */
export async function storeContentHash(store: HashableStore): Promise<string> {
  const hash = createHash("sha256");
  const add = (value: unknown) => hash.update(`${canonical(value)}\n`);
  add(await store.getEmbeddingInfo());
  for (let offset = 0; ; offset += 500) {
    const page = await store.listDocuments({ limit: 500, offset });
    for (const summary of page) {
      const d = await store.getDocument(summary.id);
      add(pick(d, ["id", "key", "source", "title", "content", "contentHash", "metadata", "collection", "createdAt", "updatedAt"]));
      for (const c of await store.exportChunks(summary.id)) {
        add(pick(c, ["id", "idx", "text", "start", "end", "heading", "embedded", "inputHash", "vector"]));
      }
    }
    if (page.length < 500) break;
  }
  for (const c of await store.listCollections()) {
    add(pick(c, ["name", "description", "source", "enabled", "settings", "lastImportAt"]));
    for (const f of await store.listFiles(c.name)) add(pick(f, ["docId", "path", "size", "mtime", "contentHash", "chunking"]));
  }
  return hash.digest("hex");
}

/** JSON with object keys sorted (PostgreSQL's jsonb reorders them). */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === "object" && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}
