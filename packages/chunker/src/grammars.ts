import { createRequire } from "node:module";
import { Language, Parser } from "web-tree-sitter";

/**
 * tree-sitter through WebAssembly: the runtime from `web-tree-sitter`, the grammars prebuilt in
 * `tree-sitter-wasms`, both resolved from node_modules (no native build, no download). The
 * runtime is initialised once, each grammar loaded the first time it is needed and kept.
 */
const require = createRequire(import.meta.url);

let runtime: Promise<void> | undefined;
const languages = new Map<string, Promise<Language>>();
const parsers = new Map<string, Parser>();

function init(): Promise<void> {
  runtime ??= Parser.init({ locateFile: () => require.resolve("web-tree-sitter/tree-sitter.wasm") }).catch((error: unknown) => {
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
    language = init().then(() => Language.load(grammarPath(grammar)));
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
