-- docdb schema for PostgreSQL, version 1. Every docdb database is one PostgreSQL schema; this
-- file runs with that schema first on the search_path. The vector table (chunk_vectors) is
-- created by the store when the database is first embedded, because its dimension comes from
-- the embedding model. Text that filters compare uses the "C" collation (code-point order, as
-- the filter contract says); timestamps are ISO 8601 UTC text with milliseconds.

CREATE TABLE meta (
  key   TEXT COLLATE "C" PRIMARY KEY,
  value TEXT NOT NULL
);

-- One row, updated last by every transaction that changes anything: `version` is what
-- changeToken() reads; `chunks` and `terms` (the sum of chunks.kw_length) are the keyword
-- statistics BM25 needs on every query (N and the average length), kept in step here rather
-- than counted per query.
CREATE TABLE counters (
  id      INTEGER PRIMARY KEY CHECK (id = 1),
  version BIGINT NOT NULL,
  chunks  BIGINT NOT NULL,
  terms   BIGINT NOT NULL
);
INSERT INTO counters (id, version, chunks, terms) VALUES (1, 0, 0, 0);
-- Tells a database apart from one dropped and created again under the same name.
INSERT INTO meta (key, value) VALUES ('instance', gen_random_uuid()::text);

CREATE TABLE documents (
  id           TEXT COLLATE "C" PRIMARY KEY,   -- ULID
  key          TEXT COLLATE "C" UNIQUE,        -- the caller's own unique key, or null
  source       TEXT COLLATE "C",               -- file path (relative to a collection) or null
  title        TEXT COLLATE "C",
  content      TEXT NOT NULL,
  content_hash TEXT NOT NULL,                  -- sha256 of content
  content_length INTEGER NOT NULL,             -- characters (code points), as SQLite's length() counts
  metadata     JSONB NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
  collection   TEXT COLLATE "C",
  created_at   TEXT COLLATE "C" NOT NULL,
  updated_at   TEXT COLLATE "C" NOT NULL
);
CREATE INDEX documents_collection_source ON documents (collection, source);
CREATE INDEX documents_source ON documents (source);
CREATE INDEX documents_created ON documents (created_at, id);

CREATE TABLE chunks (
  seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, -- never reused: keys postings and chunk_vectors
  id         TEXT COLLATE "C" NOT NULL UNIQUE,                -- ULID
  doc_id     TEXT COLLATE "C" NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  idx        INTEGER NOT NULL,
  text       TEXT NOT NULL,
  start      INTEGER NOT NULL,
  "end"      INTEGER NOT NULL,
  heading    TEXT,                                            -- heading or symbol path, " > "-joined
  line_start INTEGER,
  line_end   INTEGER,
  input_hash TEXT,                                            -- what the vector is computed from
  embedded   BOOLEAN NOT NULL DEFAULT FALSE,
  kw_length  INTEGER NOT NULL DEFAULT 0,                      -- index terms in title + body (BM25 length)
  UNIQUE (doc_id, idx)
);
CREATE INDEX chunks_pending ON chunks (id) WHERE NOT embedded;

-- The keyword index: one row per (term, chunk). Terms come from @docdb/analyzer (already
-- lower-cased, stemmed, Japanese segmented); PostgreSQL's own parser and stemmer never run.
-- Positions (0-based term offsets) make phrase matching possible; `length` repeats
-- chunks.kw_length so BM25 needs no join. Title = document title + chunk heading.
-- No foreign key to chunks (its per-row check made bulk writes a third slower): the store
-- deletes a chunk's postings in the same transaction as the chunk.
CREATE TABLE postings (
  term        TEXT COLLATE "C" NOT NULL,
  seq         BIGINT NOT NULL,
  length      INTEGER NOT NULL,
  title_pos   INTEGER[] NOT NULL,
  body_pos    INTEGER[] NOT NULL,
  PRIMARY KEY (term, seq)
);
CREATE INDEX postings_seq ON postings (seq);

CREATE TABLE collections (
  name           TEXT COLLATE "C" PRIMARY KEY,
  description    TEXT NOT NULL,
  source         TEXT NOT NULL,
  enabled        BOOLEAN NOT NULL DEFAULT TRUE,
  settings       JSONB NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(settings) = 'object'),
  created_at     TEXT COLLATE "C" NOT NULL,
  updated_at     TEXT COLLATE "C" NOT NULL,
  last_import_at TEXT COLLATE "C"
);

-- One row per imported file, written in the same transaction as the file's document.
CREATE TABLE files (
  collection   TEXT COLLATE "C" NOT NULL REFERENCES collections (name) ON DELETE CASCADE,
  path         TEXT COLLATE "C" NOT NULL,
  size         BIGINT NOT NULL,
  mtime        DOUBLE PRECISION NOT NULL,     -- milliseconds since the epoch
  content_hash TEXT NOT NULL,
  doc_id       TEXT COLLATE "C" NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  chunking     TEXT NOT NULL,
  imported_at  TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (collection, path)
);
CREATE INDEX files_doc ON files (doc_id);
