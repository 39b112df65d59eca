import { rmSync } from "node:fs";
import { defineConfig } from "tsup";
import { bundleOptions, copyMigrations } from "../../scripts/tsup-bundle";

// Two builds into one folder, so the folder is emptied once here rather than by either.
rmSync("dist", { recursive: true, force: true });

export default defineConfig([
  // The library (`@docdb/mcp-server`, imported by `docdb serve` and by programs): dependencies stay imports.
  {
    entry: ["src/index.ts"],
    format: ["esm"],
    target: "node20",
    dts: true,
    sourcemap: true,
  },
  // The `docdb-mcp` program: one bundled file with its SQL migrations beside it.
  {
    ...bundleOptions({ bin: "src/bin.ts" }),
    async onSuccess() {
      copyMigrations();
    },
  },
]);
