-- docdb schema, version 1. The vector table (chunks_vec) is created by the store when the
-- database is first embedded, because its dimension comes from the embedding model.

CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE documents (
  id           TEXT PRIMARY KEY,             -- ULID
  source       TEXT,                         -- file path (relative to a collection) or null
  title        TEXT,
  content      TEXT NOT NULL,
  content_hash TEXT NOT NULL,                -- sha256 of content
  metadata     TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata) AND json_type(metadata) = 'object'),
  collection   TEXT,
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL
);
CREATE INDEX documents_collection_source ON documents(collection, source);
CREATE INDEX documents_source ON documents(source);

CREATE TABLE chunks (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: keys chunks_vec and chunks_fts
  id         TEXT NOT NULL UNIQUE,              -- ULID
  doc_id     TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  idx        INTEGER NOT NULL,
  text       TEXT NOT NULL,
  start      INTEGER NOT NULL,
  end        INTEGER NOT NULL,
  heading    TEXT,                              -- Markdown heading path, " > "-joined
  line_start INTEGER,
  line_end   INTEGER,
  embedded   INTEGER NOT NULL DEFAULT 0,
  UNIQUE (doc_id, idx)
);
CREATE INDEX chunks_pending ON chunks(seq) WHERE embedded = 0;

-- Contentless: holds only the index of a word-segmented copy of each chunk (rowid = chunks.seq).
-- The text arrives already segmented and normalised by the store's analyzer (analyzer.ts);
-- porter stems English words, the same way for documents and queries.
CREATE VIRTUAL TABLE chunks_fts USING fts5(
  title,
  body,
  content = '',
  contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2'
);
