-- docdb schema for PostgreSQL, version 6: the documented read-only views over agent memory, with
-- the same names, columns and values as SQLite's (packages/store-sqlite/migrations/0006_memory_views.sql).
-- Memory is stored as documents of the reserved collections _memory_topics, _memory_qa and
-- _memory_knowledge, its fields in their metadata; these views give those fields columns.
-- Views only, so no data is touched. As in 0005_views.sql, booleans are the integers 1 and 0 and
-- JSON columns are jsonb.

-- One row per topic, with the counts of its QA records, those not merged yet, and knowledge records.
CREATE VIEW topics_v AS
SELECT
  t.id,
  t.metadata ->> 'name' AS name,
  t.metadata ->> 'normalized_name' AS normalized_name,
  t.metadata ->> 'description' AS description,
  (SELECT count(*) FROM documents q
    WHERE q.collection = '_memory_qa'
      AND q.metadata ->> 'topic_key' = t.metadata ->> 'normalized_name')::integer AS qa_count,
  (SELECT count(*) FROM documents q
    WHERE q.collection = '_memory_qa'
      AND q.metadata ->> 'topic_key' = t.metadata ->> 'normalized_name'
      AND coalesce(q.metadata -> 'merged', 'false'::jsonb) IN ('false'::jsonb, '0'::jsonb))::integer AS unmerged_count,
  (SELECT count(*) FROM documents k
    WHERE k.collection = '_memory_knowledge'
      AND k.metadata ->> 'topic_key' = t.metadata ->> 'normalized_name')::integer AS knowledge_count,
  t.created_at,
  t.updated_at
FROM documents t
WHERE t.collection = '_memory_topics';

-- One row per question–answer record; merged is 1 once merged into the knowledge record merged_into.
CREATE VIEW qa_v AS
SELECT
  id,
  metadata ->> 'topic' AS topic,
  metadata ->> 'question' AS question,
  metadata ->> 'answer' AS answer,
  CASE WHEN coalesce(metadata -> 'merged', 'false'::jsonb) IN ('false'::jsonb, '0'::jsonb) THEN 0 ELSE 1 END AS merged,
  metadata ->> 'merged_into' AS merged_into,
  created_at,
  updated_at
FROM documents
WHERE collection = '_memory_qa';

-- One row per knowledge record; source_qa_ids is a JSON array of qa_v ids (join with
-- jsonb_array_elements_text(source_qa_ids)), source_count its length.
CREATE VIEW knowledge_v AS
SELECT
  id,
  metadata ->> 'topic' AS topic,
  content AS text,
  coalesce(metadata -> 'source_qa_ids', '[]'::jsonb) AS source_qa_ids,
  CASE WHEN jsonb_typeof(metadata -> 'source_qa_ids') = 'array' THEN jsonb_array_length(metadata -> 'source_qa_ids') ELSE 0 END AS source_count,
  created_at,
  updated_at
FROM documents
WHERE collection = '_memory_knowledge';
