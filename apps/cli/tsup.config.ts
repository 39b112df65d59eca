import { rmSync, writeFileSync } from "node:fs";
import { defineConfig } from "tsup";
import { bundleOptions } from "../../scripts/tsup-bundle";

// Several builds into one folder, so the folder is emptied once here rather than by any of them.
rmSync("dist", { recursive: true, force: true });

// The `docdb` program: dist/index.js (CommonJS) runs the bundle dist/docdb.cjs (which holds the
// MCP server `docdb serve` runs), SQL migrations beside it. The package exports nothing else.
// The MCP server from its sources, as docdb-mcp's own bundle has it: the library's split ES build
// would load every tool module at `docdb serve`'s start, where one bundle loads them on first use.
// `docdb eval`'s package from its sources too, like core (the bundle aliases "@docdb/core").
const [bundle, launcher] = bundleOptions("docdb", "src/index.ts", "index", {
  "@docdb/eval": "../../packages/eval/src/index.ts",
  "@docdb/mcp-server/flags": "../mcp-server/src/flags.ts",
  "@docdb/mcp-server/serve": "../mcp-server/src/serve.ts",
  "@docdb/mcp-server/ui": "../mcp-server/src/ui.ts",
});
export default defineConfig([
  bundle!,
  {
    ...launcher!,
    async onSuccess() {
      writeFileSync("dist/index.d.ts", "export {};\n");
    },
  },
]);
