import { createRequire } from "node:module";
import v8 from "node:v8";
import { Language, Parser } from "web-tree-sitter";

/**
 * tree-sitter through WebAssembly: the runtime from `web-tree-sitter`, the grammars prebuilt in
 * `tree-sitter-wasms`, both resolved from node_modules (no native build, no download). The
 * runtime is initialised once, each grammar loaded the first time it is needed and kept.
 */
const require = createRequire(import.meta.url);

/**
 * V8 compiles WebAssembly lazily with its baseline compiler (Liftoff) and only later, in the
 * background, optimizes hot functions. tree-sitter spends its time in a few huge functions (the
 * parse loop, each grammar's lexer) that this tiering reaches late or not at all: parsing ran at
 * about a third of the speed it reaches once optimized (0.5 against 2–4 MB/s of JavaScript on the
 * 2-core test machine). So the runtime and every grammar are compiled eagerly by the optimizing
 * compiler: a one-off cost of about half a second for the runtime and one to two seconds per
 * grammar, paid back after a few MB of code. The flags are set only around those compilations
 * and put back to V8's defaults after; a process started with its own Liftoff or lazy-compilation
 * flags is left alone.
 */
function optimizedCompile<T>(compile: () => Promise<T>): Promise<T> {
  const ownFlags = process.execArgv.some((a) => /liftoff|wasm-lazy-compilation/.test(a));
  if (ownFlags) return compile();
  v8.setFlagsFromString("--no-liftoff");
  v8.setFlagsFromString("--no-wasm-lazy-compilation");
  return compile().finally(() => {
    v8.setFlagsFromString("--liftoff");
    v8.setFlagsFromString("--wasm-lazy-compilation");
  });
}

let runtime: Promise<void> | undefined;
const languages = new Map<string, Promise<Language>>();
const parsers = new Map<string, Parser>();

function init(): Promise<void> {
  runtime ??= optimizedCompile(() => Parser.init({ locateFile: () => require.resolve("web-tree-sitter/tree-sitter.wasm") })).catch(
    (error: unknown) => {
      runtime = undefined;
      throw error;
    },
  );
  return runtime;
}

/** Path of a grammar's wasm file, e.g. `grammarPath("c_sharp")`. */
export function grammarPath(grammar: string): string {
  return require.resolve(`tree-sitter-wasms/out/tree-sitter-${grammar}.wasm`);
}

function loadLanguage(grammar: string): Promise<Language> {
  let language = languages.get(grammar);
  if (!language) {
    language = init().then(() => optimizedCompile(() => Language.load(grammarPath(grammar))));
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
  let parser = parsers.get(grammar);
  if (!parser) {
    parser = new Parser();
    parser.setLanguage(language);
    parsers.set(grammar, parser);
  }
  return parser;
}
