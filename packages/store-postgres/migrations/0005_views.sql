-- docdb schema for PostgreSQL, version 5: the documented read-only views behind `docdb sql` and
-- the MCP tool query_sql, with the same names, columns and values as SQLite's
-- (packages/store-sqlite/migrations/0004_views.sql). They are the stable interface for people and agents (the
-- tables under them may change between versions). (Numbered 0005, not 0002: the numbers between
-- are kept free for migrations that mirror SQLite's.)
--
-- Where the two engines' values could differ, the views make them the same: booleans are the
-- integers 1 and 0 (as SQLite stores them), the length is in characters (code points), times
-- are ISO 8601 UTC text. JSON columns (metadata, settings) are jsonb here and JSON text on
-- SQLite: `metadata ->> 'lang'` reads a member on both; their text form differs (jsonb prints
-- `{"lang": "ja"}` with its keys sorted by length, SQLite keeps the text it was given).

-- One row per document. length is the content's length in characters.
CREATE VIEW documents_v AS
SELECT
  id,
  key,
  title,
  source,
  collection,
  metadata,
  created_at,
  updated_at,
  content_length AS length
FROM documents;

-- One row per chunk (passage) of a document, in document order by idx. start/end are character
-- offsets in the document; line_start/line_end are 1-based lines when known; embedded is 1 when
-- the chunk has a vector, 0 when it waits for one.
CREATE VIEW chunks_v AS
SELECT
  id,
  doc_id,
  idx,
  text,
  start,
  "end",
  heading,
  line_start,
  line_end,
  embedded::integer AS embedded
FROM chunks;

-- One row per collection (a folder imported as a document set). enabled is 1 or 0.
CREATE VIEW collections_v AS
SELECT
  name,
  description,
  source,
  enabled::integer AS enabled,
  settings,
  created_at,
  updated_at,
  last_import_at
FROM collections;

-- One row per imported file of a collection. mtime is milliseconds since the epoch.
CREATE VIEW files_v AS
SELECT
  collection,
  path,
  size,
  mtime,
  content_hash,
  doc_id,
  chunking,
  imported_at
FROM files;
