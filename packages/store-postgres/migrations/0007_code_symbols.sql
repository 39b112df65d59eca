-- docdb schema for PostgreSQL, version 7: what a chunk of code holds (issue 16).
-- * language: the chunk's programming language (typescript, python…), null for prose.
-- * symbol: the symbol path of the declaration it holds (PaymentService.retryCharge); its terms
--   are indexed with the title and heading (postings' title positions).
-- * symbol_kind: function, class, method, interface, type, enum, struct, trait, impl, module,
--   variable, field or macro.
-- * symbols: when several small declarations were packed into the chunk, all of them (symbol
--   first) as [{"symbol", "kind"}]; all are indexed with the title.
-- * code_fallback: set when the code was cut by line windows instead of its syntax tree, and why
--   (syntax_error, unsupported_language).
-- * doc: the documentation of its declarations (doc comments, docstrings), indexed with the
--   title, heading and symbol.
-- The postings are rebuilt on the next open when the analyzer version changed (meta.analyzer_version).

ALTER TABLE chunks
  ADD COLUMN language TEXT COLLATE "C",
  ADD COLUMN symbol TEXT COLLATE "C",
  ADD COLUMN symbol_kind TEXT COLLATE "C",
  ADD COLUMN symbols JSONB,
  ADD COLUMN code_fallback TEXT,
  ADD COLUMN doc TEXT;
CREATE INDEX chunks_code_fallback ON chunks (doc_id) WHERE code_fallback IS NOT NULL;

-- chunks_v shows the code fields, as on SQLite (columns before "embedded": drop and create).
DROP VIEW chunks_v;
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
  language,
  symbol,
  symbol_kind,
  embedded::integer AS embedded
FROM chunks;
