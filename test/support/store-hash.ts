import { createHash } from "node:crypto";
import type { Store } from "@docdb/store";

/**
 * sha256 over every table of a database as the Store contract shows it: the embedding model;
 * documents with content, metadata and times; chunks with text, offsets, embedded state, input
 * hash and vector bytes; collections with their settings; file rows. Equal hashes: equal databases.
 */
export async function storeContentHash(store: Store): Promise<string> {
  const hash = createHash("sha256");
  const add = (value: unknown) => hash.update(`${canonical(value)}\n`);
  add(await store.getEmbeddingInfo());
  for (let offset = 0; ; offset += 500) {
    const page = await store.listDocuments({ limit: 500, offset });
    for (const summary of page) {
      const d = await store.getDocument(summary.id);
      add([d?.id, d?.key, d?.source, d?.title, d?.content, d?.contentHash, d?.metadata, d?.collection, instant(d?.createdAt), instant(d?.updatedAt)]);
      for (const c of await store.exportChunks(summary.id)) {
        const vector = c.vector ? Buffer.from(c.vector.buffer, c.vector.byteOffset, c.vector.byteLength).toString("hex") : null;
        add([c.id, c.idx, c.text, c.start, c.end, c.heading, c.embedded, c.inputHash, vector]);
      }
    }
    if (page.length < 500) break;
  }
  for (const c of await store.listCollections()) {
    add([c.name, c.description, c.source, c.enabled, c.settings, instant(c.lastImportAt)]);
    for (const f of await store.listFiles(c.name)) add([f.docId, f.path, f.size, f.mtime, f.contentHash, f.chunking]);
  }
  return hash.digest("hex");
}

/** Times as instants (engines print them differently), object keys sorted (jsonb reorders them). */
function instant(time: string | null | undefined): number | null {
  return time ? Date.parse(time) : null;
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === "object" && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}
