-- Which chunks' vectors changed, in commit order. The approximate vector index kept beside the
-- database (<name>.db.hnsw) remembers the last id it applied and catches up from here: after a
-- crash, and with other processes' writes. Written by triggers, so every write path is covered.
-- Entries the index file already holds are pruned; meta 'vector_log_floor' is the last pruned id.
CREATE TABLE vector_log (
  id  INTEGER PRIMARY KEY AUTOINCREMENT,
  seq INTEGER NOT NULL                     -- chunks.seq (= chunks_vec rowid)
);

CREATE TRIGGER vector_log_insert AFTER INSERT ON chunks WHEN NEW.embedded = 1
BEGIN
  INSERT INTO vector_log (seq) VALUES (NEW.seq);
END;

-- Fires on every write of the column (writeVectors sets it again when it replaces a vector).
CREATE TRIGGER vector_log_update AFTER UPDATE OF embedded ON chunks WHEN NEW.embedded = 1 OR OLD.embedded = 1
BEGIN
  INSERT INTO vector_log (seq) VALUES (NEW.seq);
END;

CREATE TRIGGER vector_log_delete AFTER DELETE ON chunks WHEN OLD.embedded = 1
BEGIN
  INSERT INTO vector_log (seq) VALUES (OLD.seq);
END;
