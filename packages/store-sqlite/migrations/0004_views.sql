-- docdb schema, version 4: the documented read-only views behind `docdb sql` and the MCP tool
-- query_sql. They are the stable interface for people and agents (the tables under them may
-- change between versions); none of them touches the vector table, so they work on a
-- connection without sqlite-vec.

-- One row per document. metadata is JSON text (use json_extract(metadata, '$.lang')); length is
-- the content's length in characters.
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
  length(content) AS length
FROM documents;

-- One row per chunk (passage) of a document, in document order by idx. start/end are character
-- offsets in the document; line_start/line_end are 1-based lines when known; embedded is 1 when
-- the chunk has a vector.
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
  embedded
FROM chunks;

-- One row per collection (a folder imported as a document set). settings is JSON text.
CREATE VIEW collections_v AS
SELECT
  name,
  description,
  source,
  enabled,
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
