import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DocDBError } from "../errors.js";
import { loadConfig } from "./config.js";
import { findProjectConfig, parseConfigFile, userConfigPath } from "./config-file.js";

let root: string;
let home: string;
let project: string;
let nested: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "docdb-config-"));
  home = join(root, "home");
  project = join(root, "project");
  nested = join(project, "a", "b");
  mkdirSync(nested, { recursive: true });
  mkdirSync(join(home, ".config", "docdb"), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const write = (file: string, value: unknown) => writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value));
const load = (env: Record<string, string> = {}, flags = {}) =>
  loadConfig({ cwd: nested, home, env, flags, flagNames: { dataDir: "--data-dir" } });

describe("loadConfig", () => {
  it("defaults only, each marked default, paths absolute", () => {
    const loaded = load();
    expect(loaded.files).toEqual({ project: undefined, user: undefined });
    expect(loaded.values).toEqual({
      dataDir: join(nested, "data"),
      store: undefined,
      db: "vectors",
      embedding: { provider: undefined, model: undefined, modelDir: undefined },
      chunkSize: 700,
      chunkOverlap: 100,
      topK: 10,
      http: { host: "127.0.0.1", port: 7411, token: undefined },
    });
    expect(Object.values(loaded.settings).every((s) => s.source === "default")).toBe(true);
  });

  it("flag > project file > user file > env > default, key by key; relative paths against each file's folder", () => {
    write(join(project, "docdb.config.json"), { dataDir: "store-here", topK: 5, embedding: { modelDir: "../models" } });
    write(join(home, ".config", "docdb", "config.json"), { dataDir: "/user/data", db: "notes", topK: 7, chunkSize: 500 });
    const env = { DOCDB_DATA_DIR: "/env/data", DOCDB_EMBEDDING: "none", DOCDB_HTTP_PORT: "9000" };

    const fromFiles = load(env);
    expect(fromFiles.files).toEqual({ project: join(project, "docdb.config.json"), user: join(home, ".config", "docdb", "config.json") });
    expect(fromFiles.settings.dataDir).toEqual({
      value: join(project, "store-here"),
      source: "file",
      from: join(project, "docdb.config.json"),
    });
    expect(fromFiles.settings["embedding.modelDir"].value).toBe(join(root, "models"));
    expect(fromFiles.settings.db).toEqual({ value: "notes", source: "file", from: join(home, ".config", "docdb", "config.json") });
    expect(fromFiles.values.topK).toBe(5);
    expect(fromFiles.values.chunkSize).toBe(500);
    expect(fromFiles.settings["embedding.provider"]).toEqual({ value: "none", source: "env", from: "DOCDB_EMBEDDING" });
    expect(fromFiles.settings["http.port"]).toEqual({ value: 9000, source: "env", from: "DOCDB_HTTP_PORT" });

    const withFlag = load(env, { dataDir: "flagged" });
    expect(withFlag.settings.dataDir).toEqual({ value: join(nested, "flagged"), source: "flag", from: "--data-dir" });

    rmSync(join(project, "docdb.config.json"));
    expect(load(env).settings.dataDir).toMatchObject({ value: "/user/data", source: "file" });
    rmSync(join(home, ".config", "docdb", "config.json"));
    expect(load(env).settings.dataDir).toEqual({ value: "/env/data", source: "env", from: "DOCDB_DATA_DIR" });
  });

  it("XDG_CONFIG_HOME moves the user file; the project file is the nearest one upwards", () => {
    expect(userConfigPath(home, { XDG_CONFIG_HOME: join(root, "xdg") })).toBe(join(root, "xdg", "docdb", "config.json"));
    expect(userConfigPath(home, { XDG_CONFIG_HOME: "" })).toBe(join(home, ".config", "docdb", "config.json"));
    write(join(project, "docdb.config.json"), {});
    write(join(project, "a", "docdb.config.json"), {});
    expect(findProjectConfig(nested)).toBe(join(project, "a", "docdb.config.json"));
  });

  it("a postgres:// store is carried through; a folder store is resolved", () => {
    expect(parseConfigFile("/p/docdb.config.json", JSON.stringify({ store: "postgres://u@h/db" })).store).toBe("postgres://u@h/db");
    expect(parseConfigFile("/p/docdb.config.json", JSON.stringify({ store: "s" })).store).toBe("/p/s");
  });
});

describe("invalid config files name the file, the key and the problem", () => {
  const cases: [string, unknown, RegExp][] = [
    ["a string chunk size", { chunkSize: "700" }, /key "chunkSize": must be a whole number/],
    ["an unknown key", { dataDri: "x" }, /key "dataDri": unknown key/],
    ["a nested unknown key", { http: { prot: 1 } }, /key "http.prot": unknown key \(known: host, port, token\)/],
    ["a bad provider", { embedding: { provider: "gpt" } }, /key "embedding.provider": must be one of openai, local, ollama, none/],
    ["a bad database name", { db: "../x" }, /key "db": must be 1-64 letters/],
    ["a port out of range", { http: { port: 70000 } }, /key "http.port": must be at most 65535/],
    ["topK too large", { topK: 5000 }, /key "topK": must be at most 100\b/],
    ["overlap too large", { chunkSize: 100, chunkOverlap: 60 }, /key "chunkOverlap": must be less than half/],
    ["not JSON", "{ dataDir: x", /not valid JSON/],
    ["an array", "[]", /must be a JSON object/],
  ];
  for (const [name, content, problem] of cases) {
    it(name, () => {
      const file = join(project, "docdb.config.json");
      write(file, content);
      let error: unknown;
      try {
        load();
      } catch (e) {
        error = e;
      }
      expect(DocDBError.isInstance(error)).toBe(true);
      expect((error as DocDBError).code).toBe("INVALID_REQUEST");
      expect((error as DocDBError).message).toContain(`invalid config file ${file}`);
      expect((error as DocDBError).message).toMatch(problem);
    });
  }

  it("a bad environment value names the variable", () => {
    expect(() => load({ DOCDB_HTTP_PORT: "x" })).toThrow(/DOCDB_HTTP_PORT="x"/);
    expect(() => load({ DOCDB_EMBEDDING: "gpt" })).toThrow(/DOCDB_EMBEDDING="gpt"/);
  });
});
