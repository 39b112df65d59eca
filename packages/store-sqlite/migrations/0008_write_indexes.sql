-- docdb schema, version 8: two indexes every chunk insert paid for and no query needs.
-- * chunks_doc (doc_id, idx) repeats the index SQLite keeps for UNIQUE (doc_id, idx).
-- * chunks_pending (seq) WHERE embedded = 0: pending chunks are read in id order
--   (chunks_pending_id) and counted, which chunks_pending_id covers as well.
DROP INDEX IF EXISTS chunks_doc;
DROP INDEX IF EXISTS chunks_pending;
