import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/bin.ts", "src/flags.ts"],
  format: ["esm"],
  target: "node20",
  dts: { entry: ["src/index.ts", "src/flags.ts"] },
  clean: true,
  sourcemap: true,
});
