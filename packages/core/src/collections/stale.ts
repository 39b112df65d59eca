import { statSync } from "node:fs";
import { join } from "node:path";
import type { Store } from "@docdb/store";
import type { SearchResult } from "../types.js";

/**
 * Results from imported files whose file has changed (size or modification time) or gone since
 * the import carry `stale: true` and a note, so an agent knows to re-read the file or wait for
 * the next import. One stat per distinct file among the results: cheap at top_k sizes.
 */
export async function markStale(store: Store, results: SearchResult[]): Promise<SearchResult[]> {
  const docIds = [...new Set(results.filter((r) => r.collection !== undefined).map((r) => r.doc_id))];
  if (docIds.length === 0) return results;
  const files = await store.filesOfDocuments(docIds);
  const sources = new Map((await store.listCollections()).map((c) => [c.name, c.source]));
  const notes = new Map<string, string | null>();
  for (const file of files) {
    const folder = sources.get(file.collection);
    if (folder === undefined) continue;
    let note: string | null = null;
    try {
      const info = statSync(join(folder, file.path));
      if (info.size !== file.size || info.mtimeMs !== file.mtime) {
        note = `${file.path} changed after it was imported (${file.importedAt}); this passage may be out of date until the next import of "${file.collection}"`;
      }
    } catch {
      note = `${file.path} was deleted or moved after it was imported; this passage may no longer exist`;
    }
    notes.set(file.docId, note);
  }
  return results.map((r) => {
    const note = notes.get(r.doc_id);
    return note ? { ...r, stale: true, note } : r;
  });
}
