import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { addNoise, copyFixture, NOISE_MARKERS, TS_PY_FILES } from "../../../test/support/collection-fixtures.js";
import { CLI, cliAt } from "./run-cli.js";

let dataDir: string;
const children: ChildProcess[] = [];
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
});
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "docdb-cli-collections-"));
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

const { docdb, json } = cliAt(() => dataDir);

interface Summary {
  files: number;
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  chunks: number;
  total_chunks: number;
  seconds: number;
  skipped: Record<string, number>;
}

interface FileStatus {
  path: string;
  chunks: number;
  doc_id: string;
}

describe("docdb collection / import / status (built binary)", () => {
  it("adds, lists, imports, reports status, finds by collection and path, and deletes", async () => {
    const folder = copyFixture("ts-py-project");
    addNoise(folder);
    const added = await json<{ name: string; source: string; enabled: boolean }>(
      "collection",
      "add",
      "-n",
      "billing",
      "-d",
      "Billing service: invoices, taxes and API tokens",
      "-s",
      folder,
    );
    expect(added).toMatchObject({ name: "billing", source: folder, enabled: true });

    const table = await docdb("tool", "ls");
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^NAME\s+ENABLED\s+DOCUMENTS/);
    expect(table.stdout).toContain("billing");

    const imported = await docdb("import", "-n", "billing", "--json");
    expect(imported.code, imported.stderr).toBe(0);
    const summary = JSON.parse(imported.stdout) as Summary;
    expect(summary).toMatchObject({ added: TS_PY_FILES.length, updated: 0, removed: 0, unchanged: 0 });
    expect(summary.skipped).toEqual({ too_large: 1, binary: 1, empty: 1, symlink_outside: 1 });
    expect(summary.chunks).toBe(summary.total_chunks);
    // Not a terminal: progress comes as plain lines, never a redrawn bar.
    expect(imported.stderr).not.toContain("\r");

    const status = await json<{ collection: { documents: number; chunks: number; enabled: boolean }; files: FileStatus[] }>(
      "status",
      "-n",
      "billing",
    );
    expect(status.files.map((f) => f.path)).toEqual(TS_PY_FILES);
    expect(status.collection).toMatchObject({ documents: TS_PY_FILES.length, chunks: summary.chunks, enabled: true });
    expect(status.files.reduce((n, f) => n + f.chunks, 0)).toBe(summary.chunks);

    const overall = await json<{ collections: { db: string; name: string; documents: number; pending: number }[] }>("status");
    expect(overall.collections).toEqual([expect.objectContaining({ db: "vectors", name: "billing", documents: TS_PY_FILES.length })]);

    // Keyword queries OR their words: one search covers every marker of what must stay out.
    expect(await json<unknown[]>("find", NOISE_MARKERS.join(" "), "--mode", "keyword", "-k", "50")).toEqual([]);
    expect((await json<unknown[]>("find", `${NOISE_MARKERS.join(" ")} TokenStore`, "--mode", "keyword")).length).toBeGreaterThan(0);

    const hits = await json<{ source: string; line_start: number; line_end: number; collection: string }[]>(
      "find",
      "invoice tax rate",
      "--collection",
      "billing",
      "--path",
      "app/",
      "--mode",
      "keyword",
    );
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.source.startsWith("app/") && h.collection === "billing")).toBe(true);
    expect(hits[0]?.line_start).toBeGreaterThanOrEqual(1);
    const human = await docdb("find", "rotate token", "--collection", "billing", "--path", "src/", "--mode", "keyword", "-k", "1");
    expect(human.stdout).toMatch(/src\/tokens\.ts:\d+-\d+/);

    const unknown = await docdb("find", "x", "--collection", "nope");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^NOT_FOUND: no collection "nope"/);

    const again = await docdb("import", "-n", "billing", "--mode", "new");
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^CONFLICT: collection "billing" already has 7 document/);

    // No terminal to ask on: delete needs -y.
    const refused = await docdb("collection", "delete", "-n", "billing");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/pass -y/);
    const deleted = await json<{ documents: number }>("collection", "delete", "billing", "-y");
    expect(deleted.documents).toBe(TS_PY_FILES.length);
    expect(await json<unknown[]>("collection", "ls", "--all")).toEqual([]);
    expect((await json<{ databases: { documents: number }[] }>("status")).databases[0]?.documents).toBe(0);
  });

  it("update, enable/disable and validation errors", async () => {
    const folder = copyFixture("ja-docs");
    expect((await docdb("collection", "add", "-n", "Bad Name", "-d", "x", "-s", folder)).stderr).toMatch(
      /^INVALID_REQUEST: invalid collection name/,
    );
    expect((await docdb("collection", "add", "-n", "docs", "-d", "x", "-s", join(folder, "missing"))).stderr).toMatch(/^NOT_FOUND/);
    expect((await docdb("import", "-n", "docs")).stderr).toMatch(/^NOT_FOUND/);

    await json("collection", "add", "-n", "docs", "-d", "API docs", "-s", folder);
    expect((await docdb("collection", "add", "-n", "docs", "-d", "API docs", "-s", folder)).stderr).toMatch(/^CONFLICT/);
    expect((await docdb("import", "-n", "docs", "--mode", "merge")).stderr).toMatch(
      /^INVALID_REQUEST: --mode must be one of new, replace, update/,
    );
    expect((await docdb("import", "-n", "docs", "--chunk-size", "100", "--chunk-overlap", "60")).stderr).toMatch(
      /^INVALID_REQUEST: chunk overlap/,
    );

    const updated = await json<{ description: string }>("tool", "update", "-n", "docs", "-d", "社内APIドキュメント");
    expect(updated.description).toBe("社内APIドキュメント");
    await json("collection", "disable", "docs");
    expect(await json<unknown[]>("collection", "ls")).toEqual([]);
    expect(await json<{ name: string; enabled: boolean }[]>("collection", "ls", "--all")).toEqual([
      expect.objectContaining({ name: "docs", enabled: false }),
    ]);
    await json("collection", "enable", "-n", "docs");
    expect((await json<{ name: string }[]>("collection", "ls")).map((c) => c.name)).toEqual(["docs"]);
  });

  it("update re-imports exactly the edited, deleted and added files; replace rebuilds", async () => {
    const folder = copyFixture("ja-docs");
    await json("collection", "add", "-n", "docs", "-d", "API docs", "-s", folder);
    const first = await json<Summary>("import", "-n", "docs", "--mode", "new");
    expect(first).toMatchObject({ files: 4, added: 4 });
    const before = new Map((await json<{ files: FileStatus[] }>("status", "-n", "docs")).files.map((f) => [f.path, f.doc_id]));

    appendFileSync(join(folder, "guide/errors.md"), "\n## タイムアウト\n\n30秒で接続を打ち切ります。\n");
    rmSync(join(folder, "faq.txt"));
    appendFileSync(join(folder, "guide/webhooks.md"), "# Webhook\n\n署名はHMAC-SHA256で検証します。\n");

    const update = await json<Summary>("import", "-n", "docs");
    expect(update).toMatchObject({ files: 4, added: 1, updated: 1, removed: 1, unchanged: 2 });
    const after = new Map((await json<{ files: FileStatus[] }>("status", "-n", "docs")).files.map((f) => [f.path, f.doc_id]));
    expect([...after.keys()].sort()).toEqual(["README.md", "guide/auth.md", "guide/errors.md", "guide/webhooks.md"]);
    expect(after.get("README.md")).toBe(before.get("README.md"));
    expect(after.get("guide/auth.md")).toBe(before.get("guide/auth.md"));
    expect(after.get("guide/errors.md")).not.toBe(before.get("guide/errors.md"));

    const replaced = await json<Summary>("import", "-n", "docs", "--mode", "replace");
    expect(replaced).toMatchObject({ added: 4, updated: 0, removed: 0, unchanged: 0 });
    const rebuilt = (await json<{ files: FileStatus[] }>("status", "-n", "docs")).files;
    for (const f of rebuilt) expect(after.get(f.path)).not.toBe(f.doc_id);
  });

  it("docdb watch catches up at start and re-imports an edited file after the debounce", async () => {
    const folder = copyFixture("ja-docs");
    await json("collection", "add", "-n", "docs", "-d", "API docs", "-s", folder);
    // Never imported: the watcher's catch-up imports everything.
    const child = spawn(process.execPath, [CLI, "--data-dir", dataDir, "watch", "--debounce", "200", "--json"], {
      env: { ...process.env, DOCDB_EMBEDDING: "none", OPENAI_API_KEY: "", DOCDB_LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    const events: { type: string; reason?: string; summary?: Summary }[] = [];
    const waiters: (() => void)[] = [];
    createInterface({ input: child.stdout! }).on("line", (line) => {
      events.push(JSON.parse(line));
      for (const wake of waiters.splice(0)) wake();
    });
    const waitFor = async (predicate: (e: (typeof events)[number]) => boolean) => {
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        const found = events.find(predicate);
        if (found) return found;
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 500);
        });
      }
      throw new Error(`event not seen; got ${JSON.stringify(events)}`);
    };

    const start = await waitFor((e) => e.type === "imported" && e.reason === "start");
    expect(start.summary).toMatchObject({ added: 4 });

    appendFileSync(join(folder, "guide/auth.md"), "\n## 二要素認証\n\n管理者アカウントでは二要素認証が必須です。\n");
    const change = await waitFor((e) => e.type === "imported" && e.reason === "change" && (e.summary?.updated ?? 0) > 0);
    expect(change.summary).toMatchObject({ added: 0, updated: 1, removed: 0, unchanged: 3 });

    const found = await json<{ source: string; stale?: boolean }[]>("find", "二要素認証", "--collection", "docs", "--mode", "keyword");
    expect(found[0]).toMatchObject({ source: "guide/auth.md" });
    expect(found[0]?.stale).toBeUndefined();

    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});
