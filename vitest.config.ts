import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests import packages from source; the CLI and server tests run the built binaries.
    alias: {
      "@docdb/chunker": src("./packages/chunker/src/index.ts"),
      "@docdb/embed": src("./packages/embed/src/index.ts"),
      "@docdb/analyzer": src("./packages/analyzer/src/index.ts"),
      "@docdb/store/contract-suite": src("./packages/store/src/contract-suite/index.ts"),
      "@docdb/store": src("./packages/store/src/index.ts"),
      "@docdb/store-sqlite": src("./packages/store-sqlite/src/index.ts"),
      "@docdb/store-postgres": src("./packages/store-postgres/src/index.ts"),
      "@docdb/core": src("./packages/core/src/index.ts"),
      "@docdb/eval": src("./packages/eval/src/index.ts"),
      "@docdb/extract": src("./packages/extract/src/index.ts"),
    },
  },
  test: {
    include: [
      "packages/*/src/**/*.test.ts",
      "packages/*/test/**/*.test.ts",
      "apps/*/src/**/*.test.ts",
      "apps/*/test/**/*.test.ts",
      "test/**/*.test.ts",
    ],
    pool: "forks",
    // Generates the tiny ONNX test models (scripts/make-tiny-model.mjs) once per run.
    globalSetup: ["test/support/global-setup.ts"],
    // No test may download a model or pick up one cached on the developer's machine: tests that
    // exercise downloads point the provider at a local fake hub and a scratch cache themselves.
    env: {
      DOCDB_MODEL_DOWNLOAD: "0",
      DOCDB_MODEL_CACHE: src("./.tmp/no-model-cache"),
      HF_HUB_CACHE: src("./.tmp/no-hf-cache"),
    },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
