import { createRequire } from "node:module";
import type { Language, Parser } from "web-tree-sitter";

/**
 * tree-sitter through WebAssembly: the runtime from `web-tree-sitter`, the grammars prebuilt in
 * `tree-sitter-wasms`, both resolved from node_modules (no native build, no download). The
 * runtime is initialised once, each grammar loaded the first time it is needed and kept.
 */
const require = createRequire(import.meta.url);

/**
 * The runtime and the grammars are compiled by V8's baseline WebAssembly compiler (Liftoff) only.
 * By default V8 recompiles hot functions with its optimizing compiler on background threads, and
 * tree-sitter's hot functions include each grammar's lexer, a single function of 100 KB (JavaScript,
 * TypeScript) to 600 KB (C++): optimizing those cost more CPU than it saved on a whole import of
 * 7 MB of code (chunking it took 3.7 s of CPU with Liftoff only, 6-8 s with tiering; eager
 * optimizing compilation, tried first, cost 1-3 s per grammar before the first file). See
 * docs/benchmarks-history.md, "Code (issue 16)". The flag is set only while tree-sitter's modules compile: V8 reads it
 * when it compiles a module (WebAssembly compiled elsewhere in that moment would be baseline only too).
 */
let compiling = 0;
async function baselineCompiled<T>(compile: () => Promise<T>): Promise<T> {
  // A process started with its own WebAssembly compiler flags is left alone.
  if (process.execArgv.some((a) => /liftoff|wasm/.test(a))) return compile();
  // node:v8 is required here, not at import: a program that never chunks code starts without it.
  const v8 = require("node:v8") as typeof import("node:v8");
  if (compiling++ === 0) v8.setFlagsFromString("--liftoff-only");
  try {
    return await compile();
  } finally {
    if (--compiling === 0) v8.setFlagsFromString("--no-liftoff-only");
  }
}

type TreeSitter = typeof import("web-tree-sitter");

let runtime: Promise<TreeSitter> | undefined;
const languages = new Map<string, Promise<Language>>();
const parsers = new Map<string, Parser>();

/** web-tree-sitter, imported on first use (a process that never chunks code never loads it) and initialised once. */
function init(): Promise<TreeSitter> {
  runtime ??= import("web-tree-sitter")
    .then(async (treeSitter) => {
      await baselineCompiled(() => treeSitter.Parser.init({ locateFile: () => require.resolve("web-tree-sitter/tree-sitter.wasm") }));
      return treeSitter;
    })
    .catch((error: unknown) => {
      runtime = undefined;
      throw error;
    });
  return runtime;
}

/** Path of a grammar's wasm file, e.g. `grammarPath("c_sharp")`. */
export function grammarPath(grammar: string): string {
  return require.resolve(`tree-sitter-wasms/out/tree-sitter-${grammar}.wasm`);
}

function loadLanguage(grammar: string): Promise<Language> {
  let language = languages.get(grammar);
  if (!language) {
    language = init().then((treeSitter) => baselineCompiled(() => treeSitter.Language.load(grammarPath(grammar))));
    language.catch(() => languages.delete(grammar));
    languages.set(grammar, language);
  }
  return language;
}

/** A parser for `grammar`, ready to use; one per grammar, reused (parsing is synchronous). */
export async function parserFor(grammar: string): Promise<Parser> {
  const existing = parsers.get(grammar);
  if (existing) return existing;
  const language = await loadLanguage(grammar);
  const { Parser } = await init();
  let parser = parsers.get(grammar);
  if (!parser) {
    parser = new Parser();
    parser.setLanguage(language);
    parsers.set(grammar, parser);
  }
  return parser;
}
