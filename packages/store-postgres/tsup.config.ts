import { cpSync } from "node:fs";
import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  target: "node20",
  dts: true,
  clean: true,
  sourcemap: true,
  tsconfig: "tsconfig.build.json",
  // The SQL migrations ship inside the package: dist/migrations.
  onSuccess: async () => {
    cpSync("../../migrations/postgres", "dist/migrations", { recursive: true });
  },
});
