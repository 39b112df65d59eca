/**
 * What a declaration looks like in each language the code chunker knows. `top` matches a
 * declaration at column 0; `member` one inside a class/impl body (tested only on lines at the
 * body's own indentation). The last capture group that matched is the declaration's name.
 * These are line patterns, not parsers: good enough to cut at sensible places, and the line
 * window behind them catches whatever they miss.
 */
export interface LanguageRules {
  top: RegExp;
  member?: RegExp;
  /** Lines that belong to the declaration below them: comments, decorators, attributes. */
  preamble: RegExp;
}

const C_PREAMBLE = /^\s*(\/\/|\/\*|\*|@[\w.]+)/;

const TYPESCRIPT: LanguageRules = {
  top: /^(?:export\s+(?:default\s+)?)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(function\*?|class|interface|type|enum|const|let|var|namespace|module)\s+([A-Za-z_$][\w$]*)|^(?:module\.)?exports(?:\.([\w$]+))?\s*=|^export\s+default\s+(\w+)/,
  member:
    /^\s+(?:(?:public|private|protected|static|readonly|async|abstract|override|declare|get|set)\s+)*\*?\s*(?!(?:if|for|while|switch|catch|return|function|new|await|typeof|else|do|try)\b)(#?[A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\(/,
  preamble: C_PREAMBLE,
};

const PYTHON: LanguageRules = {
  top: /^(?:async\s+)?(def|class)\s+([A-Za-z_]\w*)/,
  member: /^\s+(?:async\s+)?(def|class)\s+([A-Za-z_]\w*)/,
  preamble: /^\s*(#|@)/,
};

const GO: LanguageRules = {
  top: /^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)|^type\s+([A-Za-z_]\w*)|^(?:var|const)\s+([A-Za-z_]\w*|\()/,
  preamble: /^\s*(\/\/|\/\*|\*)/,
};

const RUST: LanguageRules = {
  top: /^(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+"[^"]*"\s+)?(fn|struct|enum|trait|impl|mod|type|const|static|union|macro_rules!)\s*(?:<[^>]*>\s*)?([A-Za-z_][\w:<>, ]*)?/,
  member: /^\s+(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+"[^"]*"\s+)?fn\s+([A-Za-z_]\w*)/,
  preamble: /^\s*(\/\/|\/\*|\*|#!?\[)/,
};

const JAVA: LanguageRules = {
  top: /^(?:(?:public|protected|private|abstract|final|static|sealed|non-sealed|strictfp)\s+)*(class|interface|enum|record|@interface)\s+([A-Za-z_]\w*)/,
  member:
    /^\s+(?:(?:public|protected|private|abstract|final|static|synchronized|native|default|sealed|strictfp)\s+)*(?:(?:class|interface|enum|record)\s+([A-Za-z_]\w*)|(?:<[^>]*>\s*)?(?!(?:return|new|throw|else|if|for|while|switch|catch)\b)[\w<>[\],.?]+(?:\s*<[^>]*>)?\s+([A-Za-z_]\w*)\s*\()/,
  preamble: C_PREAMBLE,
};

const RULES: Record<string, LanguageRules> = {
  typescript: TYPESCRIPT,
  javascript: TYPESCRIPT,
  python: PYTHON,
  go: GO,
  rust: RUST,
  java: JAVA,
};

/** Languages with declaration-aware chunking; any other code is cut by line windows. */
export const CODE_LANGUAGES: readonly string[] = Object.keys(RULES);

export function rulesFor(language: string | undefined): LanguageRules | undefined {
  return language === undefined ? undefined : RULES[language.toLowerCase()];
}

/** How a chunk names the declaration it holds: the matched head, e.g. `export async function load`. */
export function declarationLabel(match: RegExpExecArray): string {
  return match[0]
    .replace(/[\s({=]+$/, "")
    .trim()
    .slice(0, 120);
}
