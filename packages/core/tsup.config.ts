import { rmSync } from "node:fs";
import { defineConfig } from "tsup";

// Two builds into one folder, so the folder is emptied once here rather than by either of them.
rmSync("dist", { recursive: true, force: true });

export default defineConfig([
  {
    entry: ["src/index.ts"],
    format: ["esm"],
    target: "node20",
    dts: true,
    sourcemap: true,
  },
  // The analysis worker thread (analysis.ts), with the analyzer bundled in: one self-contained
  // file that the bundled programs copy beside themselves.
  {
    entry: { "analysis-worker": "src/analysis-worker.ts" },
    format: ["esm"],
    outExtension: () => ({ js: ".mjs" }),
    target: "node20",
    platform: "node",
    noExternal: ["@docdb/analyzer", "stemmer"],
    sourcemap: true,
  },
]);
