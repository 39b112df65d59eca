// Definitions first: finding the chunks that define the symbol a one-identifier query names.
import type { ChunkHit, CodeSymbol } from "@docdb/store";

/**
 * Definitions first: a query that is one identifier (`migrate`, `LineGuard`,
 * `PaymentService.retryCharge`, `std::vector`) asks where that symbol is defined. BM25 alone often
 * puts something else first: a file named like it (every chunk of `confirm.ts` has `confirm` in its
 * title, the shortest one wins), words sharing its stem (`migrate` and every `migrations`), or a
 * method of the class it names (`LineGuard > _transform`). So the chunks that define that name
 * (their symbol, or one of the small declarations packed into them) come first, in their BM25
 * order, followed by everything else in its order.
 */

/** Letters, digits, `_` and `$`, not starting with a digit; parts joined by `.` or `::`. */
const IDENTIFIER_PATH = /^[\p{L}_$][\p{L}\p{N}_$]*(?:(?:\.|::)[\p{L}_$][\p{L}\p{N}_$]*)*$/u;

/** How many of the best keyword hits with a symbol are searched for the definitions. */
export const DEFINITION_CANDIDATES = 100;

/** The symbol path a query names, lower-cased with `.` separators, or undefined when it is not one identifier. */
export function namedSymbol(query: string): string | undefined {
  const trimmed = query.trim();
  if (!IDENTIFIER_PATH.test(trimmed)) return undefined;
  return trimmed.replaceAll("::", ".").toLowerCase();
}

/**
 * The declaration of `name` (a symbol path from namedSymbol) the chunk holds: its symbol, or one
 * packed with it, whose path is `name` or ends with it; undefined when it holds none.
 */
export function definedSymbol(hit: Pick<ChunkHit, "symbol" | "symbolKind" | "symbols">, name: string): CodeSymbol | undefined {
  const held = hit.symbols.length > 0 ? hit.symbols : hit.symbol ? [{ symbol: hit.symbol, kind: hit.symbolKind }] : [];
  return held.find((s) => {
    const symbol = s.symbol.toLowerCase();
    return symbol === name || symbol.endsWith(`.${name}`);
  });
}

/**
 * Keyword hits with the given definitions moved first (keeping their order), scores raised above
 * every other hit's so the list stays in score order.
 */
export function definitionsFirst<T extends { chunkId: string; score: number }>(hits: T[], definitions: T[]): T[] {
  if (definitions.length === 0) return hits;
  const best = Math.max(...hits.map((h) => h.score), ...definitions.map((d) => d.score));
  const first = new Set(definitions.map((d) => d.chunkId));
  return [...definitions.map((d) => ({ ...d, score: d.score + best })), ...hits.filter((h) => !first.has(h.chunkId))];
}
