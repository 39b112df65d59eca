-- Which chunks' keyword rows (chunks_fts) changed, in commit order. The keyword index kept beside
-- the database (<name>.db.keywords) remembers the last id it applied and catches up from here:
-- after a crash, and with other processes' writes. chunks_fts is a virtual table (no triggers of
-- its own): every keyword row is written and deleted with its chunk, so triggers on chunks cover
-- every write path. A refill after an analyser change invalidates the file by its analyser version.
-- Entries the index file already holds are pruned; meta 'keyword_log_floor' is the last pruned id.
CREATE TABLE keyword_log (
  id  INTEGER PRIMARY KEY AUTOINCREMENT,
  seq INTEGER NOT NULL                     -- chunks.seq (= chunks_fts rowid)
);

CREATE TRIGGER keyword_log_insert AFTER INSERT ON chunks
BEGIN
  INSERT INTO keyword_log (seq) VALUES (NEW.seq);
END;

CREATE TRIGGER keyword_log_delete AFTER DELETE ON chunks
BEGIN
  INSERT INTO keyword_log (seq) VALUES (OLD.seq);
END;

-- No write path changes these in place today (a rewrite deletes and inserts); should one, the
-- keyword rows it re-derives are logged too.
CREATE TRIGGER keyword_log_update AFTER UPDATE OF text, heading, symbol, symbols, doc, language ON chunks
BEGIN
  INSERT INTO keyword_log (seq) VALUES (NEW.seq);
END;

CREATE TRIGGER keyword_log_title AFTER UPDATE OF title ON documents
BEGIN
  INSERT INTO keyword_log (seq) SELECT seq FROM chunks WHERE doc_id = NEW.id;
END;
