import { defineConfig } from "tsup";

// The SQL migrations ship beside dist/, in the package's own migrations/ folder ("files" in
// package.json), where src/migrate.ts finds them from both src/ and dist/index.js.
export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  target: "node20",
  dts: true,
  clean: true,
  sourcemap: true,
  tsconfig: "tsconfig.build.json",
});
