-- docdb schema, version 7: what a chunk of code holds (issue 16).
-- * language: the chunk's programming language (typescript, python…), null for prose.
-- * symbol: the symbol path of the declaration it holds (PaymentService.retryCharge); the store
--   indexes it with the title and heading, so a query naming it finds the definition.
-- * symbol_kind: function, class, method, interface, type, enum, struct, trait, impl, module,
--   variable, field or macro.
-- * symbols: when several small declarations were packed into the chunk, all of them (symbol
--   first) as a JSON array of {"symbol", "kind"}; all are indexed with the title.
-- * code_fallback: set when the code was cut by line windows instead of its syntax tree, and why
--   (syntax_error, unsupported_language).
-- * doc: the documentation of its declarations (doc comments, docstrings), indexed with the
--   title and heading so that the words describing code weigh more than the code.
-- The keyword index is refilled on the next open (the analyzer version changed with this release).

ALTER TABLE chunks ADD COLUMN language TEXT;
ALTER TABLE chunks ADD COLUMN symbol TEXT;
ALTER TABLE chunks ADD COLUMN symbol_kind TEXT;
ALTER TABLE chunks ADD COLUMN symbols TEXT CHECK (symbols IS NULL OR json_valid(symbols));
ALTER TABLE chunks ADD COLUMN code_fallback TEXT;
ALTER TABLE chunks ADD COLUMN doc TEXT;
CREATE INDEX chunks_code_fallback ON chunks(doc_id) WHERE code_fallback IS NOT NULL;

-- chunks_v as in version 4, with the code columns.
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
  embedded
FROM chunks;
