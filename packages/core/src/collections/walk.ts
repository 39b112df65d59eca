// fs.promises is read when first used: loading node:fs/promises at start-up costs the MCP server ~3 ms.
import { type Dirent, promises as fs } from "node:fs";
import { join, sep } from "node:path";
import ignore, { type Ignore } from "ignore";
import { extractedFormatOfName } from "../extraction.js";
import { isBinaryName, isNoiseName } from "./file-kind.js";
import type { SkipReason } from "./types.js";

/**
 * Folders never imported whatever the ignore files say: version control, dependencies, build
 * outputs and caches. Their content is not the collection's own words, and walking them is slow.
 */
export const EXCLUDED_DIRECTORIES: ReadonlySet<string> = new Set([
  ".git",
  ".hg",
  ".svn",
  "node_modules",
  "bower_components",
  "vendor",
  "dist",
  "build",
  "out",
  "target",
  "coverage",
  ".next",
  ".nuxt",
  ".svelte-kit",
  ".turbo",
  ".cache",
  ".parcel-cache",
  "__pycache__",
  ".venv",
  "venv",
  ".tox",
  ".mypy_cache",
  ".pytest_cache",
  ".ruff_cache",
  ".gradle",
  ".idea",
]);

/** Ignore files read in every folder, gitignore syntax; `.docdbignore` lets a folder exclude more. */
const IGNORE_FILES = [".gitignore", ".docdbignore"];

export interface WalkedFile {
  /** Relative to the root, "/"-separated. */
  path: string;
  absolute: string;
  size: number;
  mtime: number;
}

export interface WalkResult {
  files: WalkedFile[];
  skipped: { path: string; reason: SkipReason }[];
}

interface Rules {
  /** Folder of the ignore file, relative to the root, "" or ending in "/". */
  base: string;
  matcher: Ignore;
}

function toPosix(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/");
}

/** Git's layering: deeper rules win, and a `!pattern` can take back what a shallower one ignored. */
function isIgnored(rules: Rules[], path: string, directory: boolean): boolean {
  let ignored = false;
  for (const { base, matcher } of rules) {
    if (!path.startsWith(base)) continue;
    const local = path.slice(base.length) + (directory ? "/" : "");
    const result = matcher.test(local);
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}

async function loadRules(dir: string, base: string): Promise<Rules | undefined> {
  let matcher: Ignore | undefined;
  for (const name of IGNORE_FILES) {
    const content = await fs.readFile(join(dir, name), "utf8").catch(() => undefined);
    if (content === undefined) continue;
    matcher ??= ignore();
    matcher.add(content);
  }
  return matcher ? { base, matcher } : undefined;
}

/**
 * Every file under `root` worth importing, sorted by path: `.gitignore`/`.docdbignore` rules
 * honoured in every folder, excluded folders and binary or noise files left out, files over
 * `maxFileSize` (documents docdb extracts: over `maxDocumentSize`) reported as skipped. Symbolic links are followed only to files inside the
 * root (a linked folder is skipped: its real path is walked anyway, and loops are impossible).
 */
export async function walkFolder(
  root: string,
  options: { maxFileSize: number /** Documents docdb extracts (PDF…): their own limit. */; maxDocumentSize?: number; signal?: AbortSignal },
): Promise<WalkResult> {
  const realRoot = await fs.realpath(root);
  const files: WalkedFile[] = [];
  const skipped: WalkResult["skipped"] = [];

  const visit = async (dir: string, rel: string, inherited: Rules[]): Promise<void> => {
    options.signal?.throwIfAborted();
    const own = await loadRules(dir, rel === "" ? "" : `${rel}/`);
    const rules = own ? [...inherited, own] : inherited;
    let entries: Dirent[];
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      skipped.push({ path: rel || ".", reason: "unreadable" });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      const absolute = join(dir, entry.name);
      let isDirectory = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        const target = await fs.realpath(absolute).catch(() => undefined);
        const inside = target !== undefined && (target === realRoot || target.startsWith(realRoot + sep));
        if (!inside) {
          skipped.push({ path, reason: "symlink_outside" });
          continue;
        }
        const info = await fs.stat(absolute).catch(() => undefined);
        isDirectory = false; // linked folders: see above
        isFile = info?.isFile() ?? false;
      }
      if (isDirectory) {
        if (EXCLUDED_DIRECTORIES.has(entry.name) || isIgnored(rules, path, true)) continue;
        await visit(absolute, path, rules);
        continue;
      }
      if (!isFile || IGNORE_FILES.includes(entry.name)) continue;
      if (isIgnored(rules, path, false) || isBinaryName(path) || isNoiseName(path)) continue;
      const info = await fs.stat(absolute).catch(() => undefined);
      if (!info) {
        skipped.push({ path, reason: "unreadable" });
        continue;
      }
      const limit = options.maxDocumentSize !== undefined && extractedFormatOfName(path) ? options.maxDocumentSize : options.maxFileSize;
      if (info.size > limit) {
        skipped.push({ path, reason: "too_large" });
        continue;
      }
      files.push({ path: toPosix(path), absolute, size: info.size, mtime: info.mtimeMs });
    }
  };

  await visit(realRoot, "", []);
  return { files, skipped };
}

/** True when a changed path (relative, "/"-separated) lies in a folder the walk never enters. */
export function inExcludedDirectory(path: string): boolean {
  return toPosix(path)
    .split("/")
    .slice(0, -1)
    .some((segment) => EXCLUDED_DIRECTORIES.has(segment));
}
