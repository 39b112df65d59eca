import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEngine } from "@docdb/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOllama, startFakeOllama } from "../../../test/support/fake-ollama.js";
import { storeContentHash } from "../../../test/support/store-hash.js";
import { runCli } from "./run-cli.js";

// `docdb copy` into an existing target, with the built binary: a second copy brings over what
// changed on the source (vectors of `embed --pending`, a document replaced by key, a deleted
// one, a changed collection file) and a third finds nothing to do.
let root: string;
let ollama: FakeOllama;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "docdb-copy-sync-cli-"));
  ollama = await startFakeOllama();
});
afterAll(async () => {
  await ollama.close();
  rmSync(root, { recursive: true, force: true });
});

describe("docdb copy into an existing target (built binary)", () => {
  it("syncs changes, lists them with --dry-run, and says when the target is already up to date", async () => {
    const dataDir = join(root, "data");
    const folder = join(root, "notes");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "a.md"), "# Alpha\n\nThe first note about zebras.\n");
    writeFileSync(join(folder, "b.md"), "# Beta\n\nThe second note about yaks.\n");
    const docdb = async (args: string[], env: Record<string, string> = {}) => {
      const result = await runCli(["--data-dir", dataDir, ...args], { env });
      expect(result.code, `docdb ${args.join(" ")}: ${result.stderr}${result.stdout}`).toBe(0);
      return result;
    };
    const json = async <T>(args: string[], env: Record<string, string> = {}) =>
      JSON.parse((await docdb([...args, "--json"], env)).stdout) as T;
    const viaOllama = { DOCDB_EMBEDDING: "ollama", DOCDB_OLLAMA_URL: ollama.url };

    // Documents inserted while no model is configured: their chunks wait for vectors.
    await docdb(["insert", "--text", "Kept as it is.", "--key", "kept"]);
    await docdb(["insert", "--text", "The first version of a replaced note.", "--key", "replaced"]);
    const gone = await json<{ doc_id: string }>(["insert", "--text", "A note deleted later.", "--key", "gone"]);
    await docdb(["collection", "add", "-n", "notes", "-d", "notes", "-s", folder]);
    await docdb(["import", "-n", "notes"]);
    const target = `sqlite:${join(root, "backup", "copy.db")}`;
    expect(await json(["copy", "vectors", target])).toMatchObject({ copied: 5, updated: 0, deleted: 0, skipped: 0 });

    // Changes on the source.
    expect(await json(["embed", "--pending"], viaOllama)).toMatchObject({ embedded: 5 });
    await docdb(["insert", "--text", "The second version, with new words.", "--key", "replaced"], viaOllama);
    await docdb(["delete", gone.doc_id]);
    writeFileSync(join(folder, "b.md"), "# Beta\n\nThe second note, now about yaks and llamas.\n");
    await docdb(["import", "-n", "notes"], viaOllama);

    const dry = await docdb(["copy", "vectors", target, "--dry-run"]);
    expect(dry.stdout).toMatch(
      /^would copy 1 new document\(s\) from .*; 3 to update; 2 to delete; 1 collection\(s\) \(1 created or changed, 0 deleted\)\n/,
    );
    expect(dry.stdout).toContain(`  deleted: ${gone.doc_id}`);
    const second = await json<{ updated: number; deleted: number; copied: number; vectors: number }>(["copy", "vectors", target]);
    // Re-embedded: "kept", "replaced" (also new text) and a.md; b.md re-imported is a new document
    // in place of the old one; "gone" and the old b.md are deleted.
    expect(second).toMatchObject({ copied: 1, updated: 3, deleted: 2, skipped: 0, collections_updated: 1 });

    const source = await createEngine(dataDir);
    const backup = await createEngine(join(root, "backup"));
    try {
      const [a, b] = [await source.openDatabase("vectors"), await backup.openDatabase("copy")];
      expect(await storeContentHash(b)).toBe(await storeContentHash(a));
      expect((await b.counts()).pending).toBe(0);
    } finally {
      await source.close();
      await backup.close();
    }

    const third = await docdb(["copy", "vectors", target]);
    expect(third.stdout).toMatch(/^target already up to date: nothing to copy /);
    expect(await json(["copy", "vectors", target])).toMatchObject({ up_to_date: true, copied: 0, updated: 0, deleted: 0, skipped: 4 });
  });
});
