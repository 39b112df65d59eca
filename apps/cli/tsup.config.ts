import { rmSync, writeFileSync } from "node:fs";
import { defineConfig } from "tsup";
import { bundleOptions } from "../../scripts/tsup-bundle";

// Several builds into one folder, so the folder is emptied once here rather than by any of them.
rmSync("dist", { recursive: true, force: true });

// The `docdb` program: dist/index.js runs the bundle dist/docdb.cjs (which holds the MCP server
// `docdb serve` runs), SQL migrations beside it. The package exports nothing else.
const [bundle, launcher] = bundleOptions("docdb", "src/index.ts", "index");
export default defineConfig([
  bundle!,
  {
    ...launcher!,
    async onSuccess() {
      writeFileSync("dist/index.d.ts", "export {};\n");
    },
  },
]);
