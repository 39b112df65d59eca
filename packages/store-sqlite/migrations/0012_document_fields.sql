-- docdb schema, version 12: every field of a document but its content, in one index that reads
-- them without the row. content sits before metadata, collection, created_at, updated_at and key
-- in a document's row, so reading any of those from the row walks the content's overflow pages
-- (one page read per 4 KB: a 2 MB book costs 500 for each hit, filter check or listed row).
-- Queries that show a document's fields name this index (rows.ts DOCUMENTS); length(content)
-- is kept in it for listings, computed once when the document is written.
CREATE INDEX documents_fields ON documents(
  id,
  title,
  source,
  collection,
  created_at,
  updated_at,
  key,
  content_hash,
  length(content),
  metadata
);
