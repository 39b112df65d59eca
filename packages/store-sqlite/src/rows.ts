// Rows as SQLite returns them → the contract's objects, through the codec both engines share
// (@docdb/store). SQLite keeps JSON as text and booleans as 0/1.
import { type ChunkHit, type ChunkLocator, type CodeSymbol, rowCodec } from "@docdb/store";

export type { Row } from "@docdb/store";

export const { toDocument, toDocumentSummary, toChunk, toExportedChunk, toChunkHit, toPendingChunk, toCollection, toFile } = rowCodec({
  json: (value) => JSON.parse(value as string),
  bool: (value) => value === 1,
});

/**
 * The documents table as `d`, read through the index documents_fields (migration 0012), which
 * holds every field but the content: a query joining it never reads the document's row, so never
 * walks a large content's overflow pages. Only for queries that read no other column than those.
 */
export const DOCUMENTS = "documents d INDEXED BY documents_fields";

/**
 * The columns of a search hit's row (its chunk's, then its document's; not `embedded`: only
 * embedded chunks' rows are read), as an array of values: `toHit` makes the object `toChunkHit`
 * makes from the same row, without the driver's object per row (a find reads one row per
 * passage). Each value costs the driver ~80 ns, NULL or not.
 */
export const HIT_COLUMNS = [
  "c.seq",
  "c.id",
  "c.doc_id",
  "c.idx",
  "c.text",
  "c.start",
  "c.end",
  "c.heading",
  "c.line_start",
  "c.line_end",
  "c.language",
  "c.symbol",
  "c.symbol_kind",
  "c.symbols",
  "c.code_fallback",
  "c.doc",
  "c.locator",
  "d.title",
  "d.source",
  "d.collection",
  "d.metadata",
  "d.updated_at",
].join(", ");
export const HIT_SEQ = 0;
export const HIT_ID = 1;
/** A keyword hit's row: HIT_COLUMNS then `embedded` (keyword hits need not have a vector). */
export const KEYWORD_HIT_COLUMNS = `${HIT_COLUMNS}, c.embedded`;
const HIT_EMBEDDED = 22;

const text = (value: unknown): string | null => (value as string | null) ?? null;

export function toHit(v: unknown[]): ChunkHit {
  return {
    id: v[1] as string,
    docId: v[2] as string,
    idx: v[3] as number,
    text: v[4] as string,
    start: v[5] as number,
    end: v[6] as number,
    heading: text(v[7]),
    lineStart: (v[8] as number | null) ?? null,
    lineEnd: (v[9] as number | null) ?? null,
    language: text(v[10]),
    symbol: text(v[11]),
    symbolKind: text(v[12]),
    symbols: v[13] ? (JSON.parse(v[13] as string) as CodeSymbol[]) : [],
    codeFallback: text(v[14]),
    doc: text(v[15]),
    locator: v[16] ? (JSON.parse(v[16] as string) as ChunkLocator) : null,
    // The vector path reads rows only for chunks with their vector (HIT_ROWS asks c.embedded = 1);
    // the keyword path's rows end with the flag (KEYWORD_HIT_COLUMNS).
    embedded: v.length > HIT_EMBEDDED ? v[HIT_EMBEDDED] === 1 : true,
    title: text(v[17]),
    source: text(v[18]),
    collection: text(v[19]),
    metadata: JSON.parse(v[20] as string) as Record<string, unknown>,
    docUpdatedAt: v[21] as string,
  };
}
