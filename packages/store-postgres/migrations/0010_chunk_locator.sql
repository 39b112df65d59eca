-- docdb schema for PostgreSQL, version 9: where a chunk of an extracted document starts in its
-- file (issue 24).
-- * locator: an object with the fields that apply: page (PDF, 1-based), slide (PPTX), sheet and
--   row (spreadsheets), section (EPUB chapters); null for text, Markdown and code.
-- Filters read it as the locator fields page, slide, sheet, row and section.

ALTER TABLE chunks ADD COLUMN locator JSONB;

-- chunks_v shows the locator as JSON text, as on SQLite (columns before "embedded": drop and create).
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
  locator::text AS locator,
  embedded::integer AS embedded
FROM chunks;
