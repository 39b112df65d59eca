// A chunk's keyword-index terms (IndexTerms): its title field (document title, heading, code
// symbols, documentation) and its body, as analysed by analyzer.ts.
import { ANALYZER_VERSION, analyzeForIndex } from "./analyzer.js";

/**
 * What a chunk contributes to the keyword index, analysed once wherever is convenient (a worker
 * thread, outside a write transaction) and handed to any engine. Terms never hold whitespace, so
 * each field is its terms joined by single spaces (cheap to pass between threads, and what an
 * engine that tokenizes on spaces stores as it is); `splitTerms` gives the list back.
 */
export interface IndexTerms {
  /** The ANALYZER_VERSION that produced the terms: an engine analyses again on another one. */
  version: number;
  /**
   * The weighted field: `words(title)`, then the words of the chunk's heading, code symbols and
   * documentation, space-separated.
   */
  title: string;
  /** `words(text, language)`, space-separated. */
  body: string;
}

/** What of a chunk besides its text goes into its index terms (the fields of a stored chunk). */
export interface IndexedChunk {
  heading?: string | null;
  /** Code: the symbol of the declaration the chunk holds. */
  symbol?: string | null;
  /** Code: every declaration a chunk of several holds (then indexed instead of `symbol`). */
  symbols?: readonly { symbol: string }[] | null;
  /** Code: the documentation of its declarations. */
  doc?: string | null;
  /** Code: the chunk's language (its reserved words are left out of the body). */
  language?: string | null;
}

/** The terms of an IndexTerms field as a list. */
export function splitTerms(field: string): string[] {
  return field === "" ? [] : field.split(" ");
}

/**
 * The index terms of a chunk: title = the document title, the chunk's heading, its code symbols
 * (all it holds, or its one symbol) and their documentation, weighted as one; body = the text, a
 * code chunk's without its language's reserved words. `titleTerms` (`analyzeForIndex(title)`)
 * may be given when several chunks share a title: the words of a document title are then
 * computed once.
 */
export function indexTerms(
  title: string | null | undefined,
  chunk: IndexedChunk,
  text: string,
  titleTerms: string = title ? analyzeForIndex(title) : "",
): IndexTerms {
  const parts = titleTerms === "" ? [] : [titleTerms];
  const symbols = chunk.symbols && chunk.symbols.length > 0 ? chunk.symbols.map((s) => s.symbol) : [chunk.symbol];
  for (const extra of [chunk.heading, ...symbols, chunk.doc]) {
    if (!extra) continue;
    const terms = analyzeForIndex(extra);
    if (terms !== "") parts.push(terms);
  }
  return { version: ANALYZER_VERSION, title: parts.join(" "), body: analyzeForIndex(text, chunk.language) };
}
