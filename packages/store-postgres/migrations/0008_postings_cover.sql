-- docdb schema for PostgreSQL, version 8: keyword search reads its postings from the index alone.
-- A query word's postings are spread over the whole table (rows are written chunk by chunk), so
-- reading them from the heap visits about one page per posting. `tf` is the weighted match count
-- BM25 uses (2 × title positions + 1 × body positions: TITLE_WEIGHT and BODY_WEIGHT of
-- packages/store-postgres/src/keyword.ts), computed by the server on every write; the primary
-- key carries it and the length, so a word's postings are one index-only range scan (once
-- (auto)vacuum has marked the pages all-visible). No new index: the key is the same one, wider.

ALTER TABLE postings ADD COLUMN tf INTEGER GENERATED ALWAYS AS (2 * cardinality(title_pos) + cardinality(body_pos)) STORED;
ALTER TABLE postings DROP CONSTRAINT postings_pkey;
ALTER TABLE postings ADD CONSTRAINT postings_pkey PRIMARY KEY (term, seq) INCLUDE (length, tf);
