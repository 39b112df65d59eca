// Shared tsup (esbuild) settings for the two programs, `docdb` (apps/cli) and `docdb-mcp`
// (apps/mcp-server): each ships as one bundled file so start-up reads a few files instead of
// the ~250 a node_modules tree costs (issue 12). The workspace packages and the pure-JS
// dependencies are bundled in; what is native, optional or heavy (and loaded lazily) stays
// external and is resolved from the app's own dependencies at run time.
import { cpSync } from "node:fs";
import type { Options } from "tsup";

/** Never bundled: native addons, their loaders, and heavy optional libraries loaded on demand. */
export const BUNDLE_EXTERNAL = [
  "better-sqlite3",
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
];

const escapeRegExp = (text: string) => text.replace(/[.*+?^$()|[\]\\/{}]/g, "\\$&");

/** Bundled: every other import (workspace packages and pure-JS dependencies). */
export const BUNDLE_NO_EXTERNAL = [new RegExp(`^(?!(?:${BUNDLE_EXTERNAL.map(escapeRegExp).join("|")})(?:/|$))`)];

/** Copies the SQL migrations next to the bundle, where `findMigrationsDir()` looks first. */
export function copyMigrations(outDir = "dist"): void {
  cpSync("../../migrations/sqlite", `${outDir}/migrations/sqlite`, { recursive: true });
}

export function bundleOptions(entry: Options["entry"]): Options {
  return {
    entry,
    format: ["esm"],
    platform: "node",
    target: "node20",
    bundle: true,
    splitting: true,
    noExternal: BUNDLE_NO_EXTERNAL,
    external: BUNDLE_EXTERNAL,
    sourcemap: true,
    // CommonJS dependencies inside an ES module bundle call require() for Node's built-ins.
    banner: {
      js: 'import { createRequire as __docdbCreateRequire } from "node:module";\nconst require = __docdbCreateRequire(import.meta.url);',
    },
  };
}
