-- docdb schema, version 9: where a chunk of an extracted document starts in its file (issue 24).
-- * locator: a JSON object with the fields that apply: page (PDF, 1-based), slide (PPTX), sheet
--   and row (spreadsheets), section (EPUB chapters); null for text, Markdown and code.
-- Filters read it as the locator fields page, slide, sheet, row and section.

ALTER TABLE chunks ADD COLUMN locator TEXT CHECK (locator IS NULL OR json_valid(locator));

-- chunks_v as in version 7, with the locator (JSON text).
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
  locator,
  embedded
FROM chunks;
