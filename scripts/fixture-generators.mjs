// Loads the TypeScript document generators of @docdb/extract's tests (PDF, Office, web) from a
// script: bundles them with esbuild (tsup's own) into .tmp/fixture-generators.mjs and imports it.
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** `{ makePdf, makeDocx, makePptx, makeXlsx, makeHtmlPage, … }` from packages/extract/test/fixtures. */
export async function loadFixtureGenerators() {
  const esbuild = createRequire(createRequire(join(root, "package.json")).resolve("tsup"))("esbuild");
  const fixtures = join(root, "packages/extract/test/fixtures");
  const outfile = join(root, ".tmp", "fixture-generators.mjs");
  await esbuild.build({
    stdin: {
      contents: ["pdf", "office", "web"].map((name) => `export * from "./${name}.ts";`).join("\n"),
      resolveDir: fixtures,
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    logLevel: "error",
    // CommonJS dependencies (fflate's node build, encoding-japanese) may require Node built-ins.
    banner: { js: 'import { createRequire as __cr } from "node:module"; const require = __cr(import.meta.url);' },
  });
  return import(`${pathToFileURL(outfile).href}?t=${Date.now()}`);
}
