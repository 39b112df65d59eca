// Loading a folder of rendered documents (PDF, DOCX, HTML…) as an eval corpus: each file goes
// through `insertFile`, as `docdb insert FILE` does, its corpus id taken from its name (`<id>.<ext>`).
import { promises as fs } from "node:fs";
import { extname, join, resolve } from "node:path";
import { type Database, DocDBError } from "@docdb/core";

export interface LoadedDocuments {
  documents: number;
  /** Files that could not be stored (each reported through `onFailure`). */
  skipped: number;
  ids: Set<string>;
}

/** The corpus id a rendered file stands for: its name without the extension (`4983.pdf` → `4983`). */
export function corpusIdOfFile(name: string): string {
  return name.slice(0, name.length - extname(name).length);
}

/**
 * Stores every file of `dir` (not its subfolders; hidden files ignored) with `insertFile` —
 * extraction, page/slide/sheet chunking and the file's own title, exactly as `docdb insert FILE`
 * — adding metadata.corpus_id from its name.
 */
export async function loadDocumentFolder(
  db: Database,
  dir: string,
  onProgress?: (progress: { phase: "load"; done: number; total: number }) => void,
  onFailure?: (file: string, message: string) => void,
): Promise<LoadedDocuments> {
  const root = resolve(dir);
  const entries = await fs.readdir(root, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    throw new DocDBError("NOT_FOUND", `--documents ${root}: ${error.code === "ENOENT" ? "no such folder" : error.message}`);
  });
  const files = entries.filter((e) => e.isFile() && !e.name.startsWith(".")).map((e) => e.name);
  files.sort();
  if (files.length === 0) {
    throw new DocDBError(
      "INVALID_REQUEST",
      `--documents ${root} holds no files: render a set into it first (scripts/render-eval-files.mjs)`,
    );
  }
  const ids = new Set<string>();
  let skipped = 0;
  onProgress?.({ phase: "load", done: 0, total: files.length });
  for (const [i, name] of files.entries()) {
    const id = corpusIdOfFile(name);
    try {
      await db.insertFile(join(root, name), { source: name, metadata: { corpus_id: id } });
      ids.add(id);
    } catch (error) {
      skipped++;
      onFailure?.(name, error instanceof Error ? error.message : String(error));
    }
    if ((i + 1) % 100 === 0 || i + 1 === files.length) onProgress?.({ phase: "load", done: i + 1, total: files.length });
  }
  return { documents: ids.size, skipped, ids };
}
