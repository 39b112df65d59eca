import { rmSync } from "node:fs";
import { defineConfig } from "tsup";
import { bundleOptions } from "../../scripts/tsup-bundle";

// Several builds into one folder, so the folder is emptied once here rather than by any of them.
rmSync("dist", { recursive: true, force: true });

export default defineConfig([
  // The library (`@docdb/mcp-server`, imported by `docdb serve` and by programs): dependencies stay
  // imports. `.mjs`, because the programs below make dist/ a CommonJS folder.
  {
    entry: ["src/index.ts", "src/flags.ts", "src/serve.ts", "src/ui.ts"],
    format: ["esm"],
    outExtension: () => ({ js: ".mjs" }),
    target: "node20",
    dts: true,
    sourcemap: true,
  },
  // The `docdb-mcp` program: dist/bin.js runs the bundle dist/docdb-mcp.cjs, SQL migrations beside it.
  ...bundleOptions("docdb-mcp", "src/bin.ts", "bin"),
]);
