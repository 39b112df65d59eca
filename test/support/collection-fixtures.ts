import { cpSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const FIXTURES = fileURLToPath(new URL("../fixtures/collections/", import.meta.url));

/** A fresh copy of a fixture folder in a temporary directory, safe to edit. */
export function copyFixture(name: "ja-docs" | "ts-py-project"): string {
  const dir = join(mkdtempSync(join(tmpdir(), `docdb-${name}-`)), name);
  cpSync(join(FIXTURES, name), dir, { recursive: true });
  return dir;
}

function write(root: string, path: string, content: string | Buffer): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

/**
 * Everything an import must leave out, made at test time (the repository's own .gitignore
 * would keep most of it out of git): dependencies, build output, files the project's
 * .gitignore names, a binary, an oversized file and a link to a file outside the folder.
 */
export function addNoise(root: string): void {
  write(root, ".git/HEAD", "ref: refs/heads/main\n");
  write(root, ".git/config", "[core]\n\trepositoryformatversion = 0\n");
  write(root, "node_modules/left-pad/index.js", "module.exports = function leftPad() { return 'NODE_MODULES_MARKER'; };\n");
  write(root, "dist/client.js", "export const BUILD_OUTPUT_MARKER = 1;\n");
  write(root, "debug.log", "IGNORED_LOG_MARKER the service started\n");
  write(root, "keep.log", "Kept on purpose: the .gitignore re-includes keep.log with a ! rule.\n");
  write(root, "secrets/key.txt", "SECRET_MARKER do not import\n");
  write(root, "generated/api.ts", "export const GENERATED_MARKER = true;\n");
  write(root, ".env", "API_KEY=SECRET_ENV_MARKER\n");
  write(root, "logo.png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]));
  write(root, "data.weird", Buffer.concat([Buffer.from("BINARY_MARKER"), Buffer.alloc(64), Buffer.from([0xff, 0xfe])]));
  write(root, "big.txt", `${"OVERSIZED_MARKER ".repeat(70_000)}\n`);
  const outside = join(mkdtempSync(join(tmpdir(), "docdb-outside-")), "outside.md");
  writeFileSync(outside, "# Outside\n\nOUTSIDE_MARKER this file lives outside the collection folder.\n");
  symlinkSync(outside, join(root, "linked-outside.md"));
}

/** What an import of ts-py-project with its noise keeps (sorted); app/__init__.py is empty and skipped. */
export const TS_PY_FILES = ["README.md", "app/billing.py", "app/server.py", "docs/notes.txt", "keep.log", "src/config.ts", "src/tokens.ts"];

export const NOISE_MARKERS = [
  "NODE_MODULES_MARKER",
  "BUILD_OUTPUT_MARKER",
  "IGNORED_LOG_MARKER",
  "SECRET_MARKER",
  "GENERATED_MARKER",
  "SECRET_ENV_MARKER",
  "BINARY_MARKER",
  "OVERSIZED_MARKER",
  "OUTSIDE_MARKER",
];
