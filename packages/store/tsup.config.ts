import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", "contract-suite/index": "src/contract-suite/index.ts" },
  format: ["esm"],
  target: "node20",
  dts: true,
  clean: true,
  sourcemap: true,
  external: ["vitest"],
});
