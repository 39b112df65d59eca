export interface Chunk {
  /** Position of the chunk in its document: 0, 1, 2… */
  index: number;
  /** The chunk's text; always equal to `source.slice(start, end)`. */
  text: string;
  /** Character offset (UTF-16 code units) of the first character in the source text. */
  start: number;
  /** Character offset one past the last character in the source text. */
  end: number;
  /** Markdown: the headings above this chunk; code: the declarations it sits in. Outermost first. */
  headingPath?: string[];
  /** Code: the language the chunk was cut as (`typescript`, `python`…; what was asked for when it is unsupported). */
  language?: string;
  /** Code: the symbol path of the declaration the chunk holds, e.g. `PaymentService.retryCharge`. */
  symbol?: string;
  /** Code: what kind of declaration `symbol` is. */
  symbolKind?: SymbolKind;
  /** Code: every declaration in the chunk when several were packed together, in order (`symbol` first). */
  symbols?: { symbol: string; kind: SymbolKind }[];
  /**
   * Code: the documentation of the chunk's declarations (doc comments, docstrings) without comment
   * markers, also on every piece of a declaration cut into line windows.
   */
  doc?: string;
  /** Code: first line of the chunk, 1-based. */
  lineStart?: number;
  /** Code: last line of the chunk, 1-based, inclusive. */
  lineEnd?: number;
  /** Code cut by line windows instead of by its syntax tree, and why. */
  fallback?: CodeFallback;
}

export type SymbolKind =
  | "function"
  | "method"
  | "class"
  | "interface"
  | "type"
  | "enum"
  | "struct"
  | "trait"
  | "impl"
  | "module"
  | "variable"
  | "field"
  | "macro";

/** Why code was cut by line windows: it did not parse, or no grammar covers its language. */
export type CodeFallback = "syntax_error" | "unsupported_language";

export interface ChunkOptions {
  /** Maximum characters per chunk. Default 700. */
  size?: number;
  /** Characters repeated between consecutive chunks. Default 100. */
  overlap?: number;
}

export const DEFAULT_CHUNK_SIZE = 700;
export const DEFAULT_CHUNK_OVERLAP = 100;
