// Shared tsup (esbuild) settings for the two programs, `docdb` (apps/cli) and `docdb-mcp`
// (apps/mcp-server): each ships as one bundled file so start-up reads a few files instead of
// the ~250 a node_modules tree costs (issue 12). The workspace packages and the pure-JS
// dependencies are bundled in; what is native, optional or heavy (and loaded lazily) stays
// external and is resolved from the app's own dependencies at run time.
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import type { Options } from "tsup";

/**
 * Never bundled: native addons, their loaders, and heavy optional libraries loaded on demand.
 * (better-sqlite3's JavaScript is bundled: the SQLite engine hands it its addon's path.)
 */
export const BUNDLE_EXTERNAL = [
  "sqlite-vec",
  "onnxruntime-node",
  "onnxruntime-web",
  "@huggingface/transformers",
  "sharp",
  "pg",
  "pg-native",
  "usearch",
  "hnswlib-node",
  "web-tree-sitter",
  "tree-sitter-wasms",
  "@docdb/store-postgres",
  "pino-pretty",
  // PDF extraction (ES modules only, with its CMaps and fonts beside it): loaded on the first PDF.
  "pdfjs-dist",
  // ICU word boundaries (an addon built at install; the analyzer falls back to Intl.Segmenter).
  "@docdb/icu-words",
];

/**
 * ulid's browser build, bundled instead of its Node build: they differ only in the Node build's
 * `import "node:crypto"` (~5 ms at every start), there for ulid's own default randomness, which
 * docdb never uses (core hands `monotonicFactory` its own source, drawn from node:crypto when
 * the first id is made). The build stops if that file moves.
 */
function ulidWithoutNodeCrypto(): string {
  const core = resolve("../../packages/core/package.json"); // from apps/<program>, like the paths below
  const file = join(dirname(createRequire(core).resolve("ulid/package.json")), "dist/browser/index.js");
  if (!existsSync(file)) throw new Error(`ulid's browser build is not at ${file}: update ulidWithoutNodeCrypto()`);
  return file;
}

/**
 * The MCP SDK's types.js builds ~160 zod schemas when it loads, 35-45 ms of every start, and
 * ~60 of them are reached by nothing in the programs. Its schema constructions are marked
 * side-effect free (`@__PURE__`), so esbuild leaves those out. Only calls on `z` and on
 * `...Schema` constants are marked: zod builds a schema without side effects (a `.describe()`
 * records the text in zod's registry, where only a kept schema is ever looked up). The same
 * calls inside the file's helpers (`isJSONRPCRequest` and the like) are marked too; their results
 * are always used, so nothing there is dropped.
 */
const SDK_TYPES = /@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]types\.js$/;
const sdkTypesPure: NonNullable<Options["esbuildPlugins"]>[number] = {
  name: "docdb-sdk-types-pure",
  setup(build) {
    build.onLoad({ filter: SDK_TYPES }, (args) => {
      const source = readFileSync(args.path, "utf8");
      if (!source.startsWith("import * as z from 'zod/v4';")) {
        throw new Error(`${args.path}: not the layout docdb's build expects (update sdkTypesPure in scripts/tsup-bundle.ts)`);
      }
      const contents = source.replace(/(?<![\w$.])((?:z|[A-Z][\w$]*Schema)\.[A-Za-z_$][\w$]*\()/g, "/* @__PURE__ */ $1");
      return { contents, loader: "js" };
    });
  },
};

/**
 * Built-ins that bundled packages require when they load but use later (pino's streams:
 * `assert`; commander: `child_process`), mapped with and without `node:` to stand-ins in
 * scripts/lazy-builtins/ that load the real module on first use.
 */
function lazyBuiltins(names: string[]): Record<string, string> {
  return Object.fromEntries(
    names.flatMap((name) => {
      const file = resolve(`../../scripts/lazy-builtins/${name}.cjs`);
      return [
        [name, file],
        [`node:${name}`, file],
      ];
    }),
  );
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^$()|[\]\\/{}]/g, "\\$&");

/** Bundled: every other import (workspace packages and pure-JS dependencies). */
export const BUNDLE_NO_EXTERNAL = [new RegExp(`^(?!(?:${BUNDLE_EXTERNAL.map(escapeRegExp).join("|")})(?:/|$))`)];

/** Where the bundle's SQLite engine finds its migrations, from the bundle (`findMigrationsDir()`). */
const SQLITE_MIGRATIONS = "./migrations/sqlite";

/**
 * Copies the SQLite engine's migrations (its package's `migrations/`) next to the bundle, where
 * `SQLITE_MIGRATIONS` tells it to look, the engine's read-only SQL child script and its WAL
 * checkpoint worker, which it starts from beside itself, core's analysis worker thread (self-contained, built by @docdb/core),
 * which core starts from there, and @docdb/extract's worker thread (its format libraries are
 * the programs' own dependencies).
 */
export function copyMigrations(outDir = "dist"): void {
  cpSync("../../packages/store-sqlite/migrations", `${outDir}/${SQLITE_MIGRATIONS}`, { recursive: true });
  cpSync("../../packages/store-sqlite/src/sql-child.mjs", `${outDir}/sql-child.mjs`);
  cpSync("../../packages/store-sqlite/src/checkpoint-worker.mjs", `${outDir}/checkpoint-worker.mjs`);
  cpSync("../../packages/core/dist/analysis-worker.mjs", `${outDir}/analysis-worker.mjs`);
  // Document extraction's worker thread (large files), which @docdb/extract starts from beside the bundle.
  cpSync("../../packages/extract/dist/extract-worker.mjs", `${outDir}/extract-worker.mjs`);
}

/**
 * Routes the bundle's `import("<external package>")` calls through `__dimp`, a function the
 * launcher passes in (its own `import()`; same folder, so the same packages resolve). Node 20
 * loses a `vm.Script`'s dynamic-import callback when the script comes from a code cache ("A
 * dynamic import callback was not specified"). Same length as `import`, so the source map holds.
 */
export function routeDynamicImports(file: string): void {
  const source = readFileSync(file, "utf8");
  const routed = source.replace(/(?<![.\w$])import\("([^"]+)"\)/g, (_call, specifier: string) => {
    const known = specifier.startsWith("node:") || BUNDLE_EXTERNAL.some((name) => specifier === name || specifier.startsWith(`${name}/`));
    if (!known) throw new Error(`${file}: unexpected dynamic import of "${specifier}" (add it to BUNDLE_EXTERNAL or bundle it)`);
    return `__dimp("${specifier}")`;
  });
  writeFileSync(file, routed);
}

/**
 * Leaves the bundle pure ASCII, so the launcher reads it as a one-byte (Latin-1) string instead
 * of decoding UTF-8 (a third of the time for 2 MB). esbuild escapes non-ASCII in strings already;
 * what is left sits in comments and a regular expression, where `\uXXXX` means the same
 * character (in a comment it is only text). Lines keep their number, so the source map still
 * finds every line.
 */
export function escapeNonAscii(file: string): void {
  const source = readFileSync(file, "utf8");
  const escaped = source.replace(/[^\x00-\x7f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
  if (escaped !== source) writeFileSync(file, escaped);
}

/**
 * The program `name` as two files: `<name>.cjs`, everything bundled into one CommonJS file
 * (CommonJS so that the launcher can compile it with a V8 code cache on Node 20), and
 * `<bin>.js`, the launcher (scripts/launcher.cjs) that runs it. Both are CommonJS: `dist/` gets
 * a package.json saying so (a library built into the same folder uses `.mjs`). `alias` maps
 * import specifiers to other files (esbuild's `alias`), for this program only.
 */
export function bundleOptions(name: string, entry: string, bin: string, alias: Record<string, string> = {}): Options[] {
  return [
    {
      entry: { [name]: entry },
      format: ["cjs"],
      outExtension: () => ({ js: ".cjs" }),
      platform: "node",
      target: "node20",
      bundle: true,
      noExternal: BUNDLE_NO_EXTERNAL,
      external: BUNDLE_EXTERNAL,
      sourcemap: true,
      // The launcher hands the bundle an `import.meta` of its own (same folder).
      // `__DOCDB_IN_BUNDLE__` tells core's logger that its `require("pino")` is the bundled one.
      // `__DOCDB_SQLITE_MIGRATIONS__`: the SQLite migrations beside the bundle (copyMigrations).
      define: {
        "import.meta": "__docdb_import_meta",
        __DOCDB_IN_BUNDLE__: "true",
        __DOCDB_SQLITE_MIGRATIONS__: JSON.stringify(SQLITE_MIGRATIONS),
      },
      esbuildPlugins: [sdkTypesPure],
      // `node:` imports are resolved by esbuild (built-ins stay external), not cut short by tsup's
      // plugin, so that the aliases below apply to them too.
      removeNodeProtocol: false,
      esbuildOptions(options) {
        options.alias = {
          ...options.alias,
          // Core from its sources: its logger's require("pino") then becomes the bundled pino,
          // loaded on the first log line (the library's ES build cannot say that).
          "@docdb/core": resolve("../../packages/core/src/index.ts"),
          ulid: ulidWithoutNodeCrypto(),
          ...lazyBuiltins(["assert", "child_process"]),
          ...alias,
        };
      },
      onSuccess: async () => {
        routeDynamicImports(`dist/${name}.cjs`);
        escapeNonAscii(`dist/${name}.cjs`);
        copyMigrations();
        writeFileSync("dist/package.json", `${JSON.stringify({ type: "commonjs" }, null, 2)}\n`);
      },
    },
    {
      entry: { [bin]: "../../scripts/launcher.cjs" },
      format: ["cjs"],
      outExtension: () => ({ js: ".js" }),
      platform: "node",
      target: "node20",
      define: { __DOCDB_BUNDLE__: JSON.stringify(`./${name}.cjs`) },
    },
  ];
}
