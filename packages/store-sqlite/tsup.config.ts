import { cpSync } from "node:fs";
import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  target: "node20",
  dts: true,
  clean: true,
  sourcemap: true,
  async onSuccess() {
    // The read-only SQL reader runs as its own process, from a plain script next to the bundle.
    // (The SQL migrations are read from the package's own migrations/ folder, beside dist/.)
    cpSync("src/sql-child.mjs", "dist/sql-child.mjs");
    // The background WAL checkpointer's worker thread, started from beside the bundle too.
    cpSync("src/checkpoint-worker.mjs", "dist/checkpoint-worker.mjs");
  },
});
