// The built page (@docdb/ui's dist/: index.html, app.js, app.css), read once into memory; the
// server serves only these names, so no request can reach another file.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { DocDBError } from "@docdb/core";

const TYPES: Record<string, string> = {
  "index.html": "text/html; charset=utf-8",
  "app.js": "text/javascript; charset=utf-8",
  "app.css": "text/css; charset=utf-8",
};

export interface UiAssets {
  readonly dir: string;
  /** One of the page's files by name, or undefined. */
  file(name: string): { type: string; body: Buffer } | undefined;
}

/** The folder of the built page: @docdb/ui's dist, found from this module. */
export function defaultAssetsDir(): string {
  try {
    return join(dirname(createRequire(import.meta.url).resolve("@docdb/ui/package.json")), "dist");
  } catch (error) {
    throw new DocDBError("INTERNAL", "the page (@docdb/ui) is not installed beside the server: pnpm add @docdb/ui", { cause: error });
  }
}

export function uiAssets(dir: string = defaultAssetsDir()): UiAssets {
  const files = new Map<string, { type: string; body: Buffer }>();
  for (const [name, type] of Object.entries(TYPES)) {
    const path = join(dir, name);
    if (!existsSync(path)) {
      throw new DocDBError(
        "INTERNAL",
        `the page's ${name} is missing from ${dir}: build it (pnpm -s build, or pnpm --filter @docdb/ui build)`,
      );
    }
    files.set(name, { type, body: readFileSync(path) });
  }
  return { dir, file: (name) => files.get(name) };
}
