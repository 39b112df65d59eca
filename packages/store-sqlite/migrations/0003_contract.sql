-- docdb schema, version 3: the storage contract.
-- * documents.key: the caller's own unique key (upsert target).
-- * chunks.input_hash: hash of what a chunk's vector is computed from, so a replaced document's
--   unchanged chunks keep their vectors.
-- * The keyword index holds terms produced entirely by @docdb/analyzer (stemming included), so
--   its tokenizer only splits on spaces; the store refills it from chunk text (it records the
--   analyzer version it indexed with in meta.analyzer_version).

ALTER TABLE documents ADD COLUMN key TEXT;
CREATE UNIQUE INDEX documents_key ON documents(key) WHERE key IS NOT NULL;
CREATE INDEX documents_created ON documents(created_at, id);

ALTER TABLE chunks ADD COLUMN input_hash TEXT;
CREATE INDEX chunks_doc ON chunks(doc_id, idx);
CREATE INDEX chunks_pending_id ON chunks(id) WHERE embedded = 0;

DROP TABLE chunks_fts;
CREATE VIRTUAL TABLE chunks_fts USING fts5(
  title,
  body,
  content = '',
  contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 0'
);
DELETE FROM meta WHERE key = 'analyzer_version';
