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
    // The runner reads SQL files next to the bundle, so the package works outside the repo.
    cpSync("../../migrations/sqlite", "dist/migrations/sqlite", { recursive: true });
    // The read-only SQL reader runs as its own process, from a plain script next to the bundle.
    cpSync("src/sql-reader-child.mjs", "dist/sql-reader-child.mjs");
  },
});
