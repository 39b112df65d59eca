import { defineConfig } from "tsup";
import { bundleOptions, copyMigrations } from "../../scripts/tsup-bundle";

// The `docdb` program: one bundled file (with the MCP server `docdb serve` runs) and its SQL
// migrations beside it.
export default defineConfig({
  ...bundleOptions(["src/index.ts"]),
  dts: true,
  clean: true,
  async onSuccess() {
    copyMigrations();
  },
});
