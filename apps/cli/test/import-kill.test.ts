import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { generateCorpus } from "../../../scripts/generate-corpus.mjs";
import { CLI, runCli } from "./run-cli.js";

const FILES = 800;
let root: string;
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

interface CollectionStatusJson {
  collection: { documents: number; chunks: number; pending: number };
  files: { path: string; chunks: number }[];
}

async function cli(dataDir: string, ...args: string[]): Promise<string> {
  const result = await runCli(["--data-dir", dataDir, ...args]);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

/** Files recorded so far, read from the database file while another process writes it. */
function importedFiles(dbPath: string): number {
  if (!existsSync(dbPath)) return 0;
  let db: Database.Database | undefined;
  try {
    db = new Database(dbPath, { readonly: true, fileMustExist: true });
    return (db.prepare("SELECT count(*) AS n FROM files").get() as { n: number }).n;
  } catch {
    return 0; // schema not there yet
  } finally {
    db?.close();
  }
}

/** Rows of every table that must agree with each other after any interruption. */
function integrity(dbPath: string) {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const one = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    return {
      documents: one("SELECT count(*) AS n FROM documents"),
      chunks: one("SELECT count(*) AS n FROM chunks"),
      keywordRows: one("SELECT count(*) AS n FROM chunks_fts"),
      filesWithoutDocument: one("SELECT count(*) AS n FROM files f LEFT JOIN documents d ON d.id = f.doc_id WHERE d.id IS NULL"),
      documentsWithoutFile: one("SELECT count(*) AS n FROM documents d LEFT JOIN files f ON f.doc_id = d.id WHERE f.doc_id IS NULL"),
      documentsWithoutChunks: one("SELECT count(*) AS n FROM documents d WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.doc_id = d.id)"),
    };
  } finally {
    db.close();
  }
}

describe("an import killed with SIGKILL midway", () => {
  it("leaves only whole files, and update then ends with the same counts as a clean import", async () => {
    root = mkdtempSync(join(tmpdir(), "docdb-kill-"));
    const folder = join(root, "corpus");
    generateCorpus(folder, { files: FILES, seed: 7 });

    // Reference: an uninterrupted import of the same folder.
    const clean = join(root, "clean");
    await cli(clean, "collection", "add", "-n", "corpus", "-d", "generated corpus", "-s", folder);
    await cli(clean, "import", "-n", "corpus", "--json");
    const expected = JSON.parse(await cli(clean, "status", "-n", "corpus", "--json")) as CollectionStatusJson;
    expect(expected.collection.documents).toBe(FILES);

    const killed = join(root, "killed");
    const dbPath = join(killed, "vectors.db");
    await cli(killed, "collection", "add", "-n", "corpus", "-d", "generated corpus", "-s", folder);
    const child = spawn(process.execPath, [CLI, "--data-dir", killed, "import", "-n", "corpus"], {
      env: { ...process.env, DOCDB_EMBEDDING: "none", OPENAI_API_KEY: "", DOCDB_LOG_LEVEL: "warn" },
      stdio: "ignore",
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
    const deadline = Date.now() + 60_000;
    while (importedFiles(dbPath) < FILES / 8 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    child.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");

    const afterKill = integrity(dbPath);
    // Midway for real: some files are in, not all.
    expect(afterKill.documents).toBeGreaterThan(0);
    expect(afterKill.documents).toBeLessThan(FILES);
    expect(afterKill).toMatchObject({ filesWithoutDocument: 0, documentsWithoutFile: 0, documentsWithoutChunks: 0 });
    expect(afterKill.keywordRows).toBe(afterKill.chunks);

    const summary = JSON.parse(await cli(killed, "import", "-n", "corpus", "--mode", "update", "--json")) as {
      added: number;
      unchanged: number;
      updated: number;
      removed: number;
    };
    expect(summary).toMatchObject({ added: FILES - afterKill.documents, unchanged: afterKill.documents, updated: 0, removed: 0 });

    const resumed = JSON.parse(await cli(killed, "status", "-n", "corpus", "--json")) as CollectionStatusJson;
    expect(resumed.collection).toMatchObject({
      documents: expected.collection.documents,
      chunks: expected.collection.chunks,
      pending: expected.collection.pending,
    });
    const shape = (files: CollectionStatusJson["files"]) => files.map((f) => ({ path: f.path, chunks: f.chunks }));
    expect(shape(resumed.files)).toEqual(shape(expected.files));
    const final = integrity(dbPath);
    expect(final.keywordRows).toBe(final.chunks);
  });
});
