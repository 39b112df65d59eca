#!/usr/bin/env node
// The bin of a bundled program (`docdb`, `docdb-mcp`): runs the CommonJS bundle beside it with
// a V8 code cache, so a start after the first one skips compiling ~2 MB of JavaScript (what
// `module.enableCompileCache()` does on Node ≥ 22.1, done by hand for Node 20: the bundle is
// compiled with `vm.Script` and its `cachedData`). Built by tsup (see scripts/tsup-bundle.ts),
// which replaces __DOCDB_BUNDLE__ with the bundle's file name.
//
// CommonJS on purpose (its folder's package.json says so): Node starts a CommonJS entry without
// its ES module loader, ~10 ms sooner, and the bundle is CommonJS too. The build also leaves the
// bundle pure ASCII, which is read here as Latin-1: a one-byte string, read in a third of the time
// UTF-8 decoding takes.
//
// The cache is a file per Node version, bundle and kind of run (see role()) in
// $DOCDB_COMPILE_CACHE, else $XDG_CACHE_HOME/docdb/compile-cache, else
// ~/.cache/docdb/compile-cache; DOCDB_COMPILE_CACHE=0 turns it off. It is written once, after start-up (2 s in, or at exit, whichever is first),
// and again whenever V8 rejects it; any failure to read or write it only costs the compile.
// Writing one removes this bundle's caches that went unused for a week (older builds). A run with
// --dry-run reads the cache but never writes it (nor makes its folders): a dry run writes nothing.
"use strict";
const { isAscii } = require("node:buffer");
const { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } = require("node:fs");
const { createRequire } = require("node:module");
const { homedir } = require("node:os");
const { basename, dirname, join } = require("node:path");
const { pathToFileURL } = require("node:url");
const vm = require("node:vm");

const file = join(__dirname, __DOCDB_BUNDLE__);
const bytes = readFileSync(file);
// (The entry's `#!` line goes; the line stays, so line numbers in stack traces hold.)
const source = bytes.toString(isAscii?.(bytes) ? "latin1" : "utf8").replace(/^#!.*/, "");

/** FNV-1a, enough to tell bundles and Node versions apart in a file name. */
function fnv(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, "0");
}

const UNUSED_MS = 7 * 24 * 3600 * 1000;

/**
 * A cache holds the functions its first run compiled, so runs that execute different code keep
 * different caches: an MCP server (`docdb serve`, `docdb-mcp --http`) would otherwise start
 * with the cache of whatever ran first (often `docdb import`), without the MCP SDK's functions
 * (25 ms slower to its first answer).
 */
function role() {
  const args = process.argv.slice(2);
  if (args.includes("serve")) return "serve-";
  if (args.includes("--http")) return "http-";
  return "";
}

function cacheFile() {
  const setting = process.env.DOCDB_COMPILE_CACHE?.trim();
  if (setting && /^(0|false|no|off)$/i.test(setting)) return undefined;
  try {
    const dir = setting || join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "docdb", "compile-cache");
    const { size, mtimeMs } = statSync(file);
    const key = [file, size, mtimeMs, process.version, process.versions.v8, process.arch].join("\0");
    return join(dir, `${basename(file)}-${role()}${fnv(key)}.v8`);
  } catch {
    return undefined;
  }
}

/** Removes the caches of this bundle's name, other than `keep`, not read or written for a week. */
function pruneStale(keep) {
  const dir = dirname(keep);
  const prefix = `${basename(file)}-`;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (!name.startsWith(prefix) || path === keep) continue;
    try {
      const { atimeMs, mtimeMs } = statSync(path);
      if (Date.now() - Math.max(atimeMs, mtimeMs) > UNUSED_MS) unlinkSync(path);
    } catch {}
  }
}

/** `--dry-run` among the arguments (before a `--`): such a run must leave no file behind. */
function dryRun() {
  const args = process.argv.slice(2);
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).includes("--dry-run");
}

const cachePath = cacheFile();
let cachedData;
if (cachePath) {
  try {
    cachedData = readFileSync(cachePath);
  } catch {}
}

// The bundle reads `import.meta` (its folder, for the SQL migrations): it is given one for this
// file, which lives in the same folder. Its import() of external ES packages (the local embedding
// model, PostgreSQL) comes here as `__dimp`: Node 20 drops a script's own dynamic-import callback
// when the script is compiled from a code cache.
const wrapper = `(function (exports, require, module, __filename, __dirname, __docdb_import_meta, __dimp) {${source}\n})`;
const script = new vm.Script(wrapper, {
  filename: file,
  cachedData,
  // For any other import() (none today: the build routes every one it finds), when not cached.
  importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER ?? ((specifier) => import(specifier)),
});

if (cachePath && (cachedData === undefined || script.cachedDataRejected) && !dryRun()) {
  // After start-up, so the cache also holds the functions start-up compiled lazily.
  let written = false;
  const write = () => {
    if (written) return;
    written = true;
    try {
      const data = script.createCachedData();
      mkdirSync(dirname(cachePath), { recursive: true });
      const temporary = `${cachePath}.${process.pid}.tmp`;
      writeFileSync(temporary, data);
      renameSync(temporary, cachePath);
      pruneStale(cachePath);
    } catch {}
  };
  setTimeout(write, 2000).unref();
  process.once("exit", write);
}

const importMeta = { url: pathToFileURL(__filename).href, filename: __filename, dirname: __dirname };
const module_ = { exports: {}, id: file, filename: file, loaded: false };
script.runInThisContext()(module_.exports, createRequire(file), module_, file, dirname(file), importMeta, (specifier) => import(specifier));
