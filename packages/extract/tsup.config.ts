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
  // The worker thread of extractInWorker (worker.ts): one self-contained file (the format
  // libraries stay external) that bundled programs copy beside themselves.
  {
    entry: { "extract-worker": "src/extract-worker.ts" },
    format: ["esm"],
    outExtension: () => ({ js: ".mjs" }),
    target: "node20",
    platform: "node",
    splitting: false,
    sourcemap: true,
  },
]);
