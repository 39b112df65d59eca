-- docdb schema, version 2: collections (named document sets imported from a folder) and the
-- files table that makes re-imports incremental.

CREATE TABLE collections (
  name           TEXT PRIMARY KEY,                 -- [a-z0-9_-]{1,64}; checked in core
  description    TEXT NOT NULL,                    -- written for an LLM: becomes the MCP tool description
  source         TEXT NOT NULL,                    -- absolute folder path
  enabled        INTEGER NOT NULL DEFAULT 1,
  settings       TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(settings) AND json_type(settings) = 'object'),
  created_at     TEXT NOT NULL,
  updated_at     TEXT NOT NULL,
  last_import_at TEXT
);

-- One row per imported file. Written in the same transaction as the file's document and
-- chunks, so a crash never leaves a file recorded without its document or the reverse.
CREATE TABLE files (
  collection   TEXT NOT NULL REFERENCES collections(name) ON DELETE CASCADE,
  path         TEXT NOT NULL,                      -- relative to the collection's folder, "/"-separated
  size         INTEGER NOT NULL,
  mtime        REAL NOT NULL,                      -- milliseconds since the epoch
  content_hash TEXT NOT NULL,                      -- sha256 of the file's bytes
  doc_id       TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  chunking     TEXT NOT NULL,                      -- chunker settings used; a change means re-chunk
  imported_at  TEXT NOT NULL,
  PRIMARY KEY (collection, path)
);
CREATE INDEX files_doc ON files(doc_id);
