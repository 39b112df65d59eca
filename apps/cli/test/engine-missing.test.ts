// PostgreSQL is an optional peer of @docdb/core: with @docdb/store-postgres out of resolution (a
// Node resolve hook, as if the package were not installed), `--store postgres://…` fails with a
// message naming the package to install; with it, the same command reaches the (absent) server.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

const HOOKS = `
export async function resolve(specifier, context, next) {
  if (specifier === "@docdb/store-postgres" || specifier.startsWith("@docdb/store-postgres/")) {
    const error = new Error(\`Cannot find package '@docdb/store-postgres' imported from \${context.parentURL}\`);
    error.code = "ERR_MODULE_NOT_FOUND";
    throw error;
  }
  return next(specifier, context);
}
`;

let dir: string;
let preload: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "docdb-engine-missing-"));
  writeFileSync(join(dir, "hooks.mjs"), HOOKS);
  preload = join(dir, "without-store-postgres.mjs");
  writeFileSync(
    preload,
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(dir, "hooks.mjs")).href)});\n`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A local port nothing listens on. */
function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

describe("--store postgres:// without @docdb/store-postgres", () => {
  it("fails naming the package to install", async () => {
    const url = `postgres://u@127.0.0.1:${await freePort()}/x`;
    const result = await runCli(["--store", url, "db", "list"], { env: { NODE_OPTIONS: `--import=${pathToFileURL(preload).href}` } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("PostgreSQL support needs the @docdb/store-postgres package: pnpm add @docdb/store-postgres");
    expect(result.stdout).toBe("");
  });

  it("with the package installed, the same command gets as far as the server", async () => {
    const url = `postgres://u@127.0.0.1:${await freePort()}/x`;
    const result = await runCli(["--store", url, "db", "list"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^STORE_UNAVAILABLE: /);
    expect(result.stderr).not.toContain("@docdb/store-postgres");
  });
});
