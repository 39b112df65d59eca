import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import type { HttpRequest } from "./plan.js";
import type { ClientDef, Scope, ServerSpec } from "./types.js";

/** The git work tree holding `file` (the nearest folder above it with a `.git`), if any. */
export function gitWorkTree(file: string): string | undefined {
  let dir = dirname(resolve(file));
  for (;;) {
    if (existsSync(resolve(dir, ".git"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Whether git would leave `file` out (.gitignore, info/exclude); false when git cannot tell. */
function ignoredByGit(root: string, file: string): boolean {
  try {
    // Required when used, as store-sqlite's sql.ts does: the bundle maps child_process to a lazy stand-in.
    const { spawnSync } = createRequire(import.meta.url)("node:child_process") as typeof import("node:child_process");
    return spawnSync("git", ["-C", root, "check-ignore", "-q", resolve(file)], { stdio: "ignore", timeout: 5000 }).status === 0;
  } catch {
    return false;
  }
}

/**
 * What to tell the user about the token of a shared server, one line each: `warnings` when the
 * token itself goes into a file git would pick up, `notes` when the file names a variable that
 * is not set (or set to another token) here.
 */
export function tokenAdvice(
  client: ClientDef,
  scope: Scope,
  file: string,
  spec: ServerSpec | undefined,
  request: HttpRequest | undefined,
  env: Record<string, string | undefined>,
  dryRun: boolean,
): { warnings: string[]; notes: string[] } {
  const auth = spec?.kind === "http" ? spec.auth : undefined;
  const token = request?.token;
  if (auth === undefined || token === undefined) return { warnings: [], notes: [] };
  if (auth.kind === "env") {
    const now = env[auth.name];
    if (token.value !== undefined ? now === token.value : now) return { warnings: [], notes: [] };
    const what = token.value !== undefined ? "the token you gave" : "the server's token";
    return {
      warnings: [],
      notes: [
        `${file} ${dryRun ? "would name" : "names"} $${auth.name}, not the token: set ${auth.name} to ${what} in the environment ${client.label} starts from`,
      ],
    };
  }
  const root = gitWorkTree(file);
  if (root === undefined || ignoredByGit(root, file)) return { warnings: [], notes: [] };
  const other = client.tokenFromEnv.find((s) => s !== scope);
  const instead = other ? `, or install with --scope ${other} (its file names $${token.env} instead)` : "";
  return {
    warnings: [
      `${file} ${dryRun ? "would hold" : "holds"} the token in plain text inside the git work tree ${root}, so it may be committed: add it to .gitignore${instead}`,
    ],
    notes: [],
  };
}
