// Rows as SQLite returns them → the contract's objects, through the codec both engines share
// (@docdb/store). SQLite keeps JSON as text and booleans as 0/1.
import { rowCodec } from "@docdb/store";

export type { Row } from "@docdb/store";

export const { toDocument, toDocumentSummary, toChunk, toExportedChunk, toChunkHit, toPendingChunk, toCollection, toFile } = rowCodec({
  json: (value) => JSON.parse(value as string),
  bool: (value) => value === 1,
});
