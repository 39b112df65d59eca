import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closedPort, type FakeHub, startFakeHub } from "../../../test/support/fake-hf-hub.js";
import { tinyModelDir } from "../../../test/support/tiny-model.js";
import { CLI, type CliResult, runCli } from "./run-cli.js";

// `docdb models` says a missing model "downloads on first use" only when the hub answers now:
// the built CLI against a fake hub that answers and an address where nothing listens.

const DEFAULT = "Xenova/multilingual-e5-small";
let scratch: string;
let hub: FakeHub;
let downHub: string;

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first (pnpm build): ${CLI} is missing`);
  scratch = mkdtempSync(join(tmpdir(), "docdb-cli-models-"));
  hub = await startFakeHub(DEFAULT, tinyModelDir(32));
  downHub = `http://127.0.0.1:${await closedPort()}`;
});
afterAll(async () => {
  await hub?.close();
  rmSync(scratch, { recursive: true, force: true });
});

type Models = {
  allow_download: boolean;
  download_check: { host: string; model: string; reachable: boolean; problem?: string } | null;
  models: { id: string; present: boolean }[];
};

/** `docdb models` with the local provider, no model anywhere, and downloads from `host`. */
const models = (host: string, args: string[] = [], env: Record<string, string | undefined> = {}) =>
  runCli(["--data-dir", join(scratch, "data"), "models", ...args], {
    env: {
      DOCDB_EMBEDDING: "local",
      DOCDB_EMBEDDING_MODEL: undefined,
      DOCDB_MODEL_DIR: undefined,
      DOCDB_MODEL_DOWNLOAD: undefined,
      HF_HUB_OFFLINE: undefined,
      HF_ENDPOINT: host,
      DOCDB_MODEL_CACHE: join(scratch, "cache"),
      ...env,
    },
  });

function json(result: CliResult): Models {
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Models;
}

const headRequests = () => hub.requests.filter((r) => r.method === "HEAD").length;

describe.sequential("docdb models: is a missing model really downloadable?", () => {
  it("a hub that cannot be reached: says so, and never 'downloads on first use'", async () => {
    const text = await models(downHub);
    expect(text.code).toBe(0);
    expect(text.stdout).not.toContain("downloads on first use");
    expect(text.stdout).toContain(
      `downloads: docdb will try ${downHub} on first use, but this machine could not reach it just now (ECONNREFUSED)\n`,
    );
    expect(text.stdout).toMatch(/^\*\s+Xenova\/multilingual-e5-small \(default\)\s+384 .*no \(hub unreachable\)$/m);
    expect(json(await models(downHub, ["--json"])).download_check).toEqual({
      host: downHub,
      model: DEFAULT,
      reachable: false,
      problem: "ECONNREFUSED",
    });
  });

  it("a hub that answers: 'downloads on first use', after one HEAD request and no download", async () => {
    const before = headRequests();
    const text = await models(hub.url);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`downloads: from ${hub.url} (reachable now)\n`);
    expect(text.stdout).toMatch(/^\*\s+Xenova\/multilingual-e5-small \(default\)\s+384 .*no \(downloads on first use\)$/m);
    expect(hub.requests.slice(-1)).toEqual([{ method: "HEAD", path: `/${DEFAULT}/resolve/main/config.json` }]);
    expect(headRequests()).toBe(before + 1);
    expect(hub.requests.some((r) => r.method === "GET")).toBe(false);
    expect(existsSync(join(scratch, "cache", DEFAULT))).toBe(false);
    const listed = json(await models(hub.url, ["--json"]));
    expect(listed.download_check).toEqual({ host: hub.url, model: DEFAULT, reachable: true });
    expect(listed.models.every((m) => !m.present)).toBe(true);
  });

  it("DOCDB_MODEL_DOWNLOAD=0, HF_HUB_OFFLINE=1 and a model folder turn downloads off: the hub is not asked", async () => {
    const before = hub.requests.length;
    for (const env of [{ DOCDB_MODEL_DOWNLOAD: "0" }, { HF_HUB_OFFLINE: "1" }]) {
      const text = await models(hub.url, [], env);
      expect(text.stdout).toContain(" (downloads off)\n");
      expect(text.stdout).not.toMatch(/on first use|reachable|unreachable/);
      expect(text.stdout).toMatch(/^\*\s+Xenova\/multilingual-e5-small \(default\)\s+384 .*\bno$/m);
      expect(json(await models(hub.url, ["--json"], env))).toMatchObject({ allow_download: false, download_check: null });
    }
    // A model folder is the only place looked in: nothing else downloads while it is set.
    const folder = await models(hub.url, [], { DOCDB_MODEL_DIR: tinyModelDir(48) });
    expect(folder.stdout).toContain(" (downloads off while DOCDB_MODEL_DIR is set)\n");
    expect(folder.stdout).not.toMatch(/on first use/);
    expect(hub.requests.length).toBe(before);
  });
});
