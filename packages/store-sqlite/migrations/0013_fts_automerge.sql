-- docdb schema, version 13: FTS5 merges its index segments eight at a time instead of four
-- (its `automerge` option, kept in chunks_fts_config). Each committed write leaves a segment, and
-- merging four at a time rewrote every posting about twice as often as eight do: a chunk's
-- keyword row cost ~35–39 µs of a write's CPU, ~31–32 µs now (bench-ingest-parts.mjs's FTS5 row).
-- Finds read at most eight segments a level instead of four; at 20,000 chunks (above which the
-- keyword index answers) they measured the same.
INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('automerge', 8);
