-- docdb schema, version 6: documented read-only views over agent memory, for `docdb sql` and the
-- MCP tool query_sql (like 0004_views.sql). Memory is stored as documents of the reserved
-- collections _memory_topics, _memory_qa and _memory_knowledge, its fields in their metadata
-- JSON; these views give those fields columns. They are the stable interface: the metadata
-- layout under them may change between versions. Views only, so no data is touched.

-- One row per topic. normalized_name is the form two spellings of a topic share ("Deploy",
-- " deploy!" → "deploy"). Counts: QA records filed under the topic, those not merged yet, and
-- knowledge records.
CREATE VIEW topics_v AS
SELECT
  t.id,
  json_extract(t.metadata, '$.name') AS name,
  json_extract(t.metadata, '$.normalized_name') AS normalized_name,
  json_extract(t.metadata, '$.description') AS description,
  (SELECT count(*) FROM documents q
    WHERE q.collection = '_memory_qa'
      AND json_extract(q.metadata, '$.topic_key') = json_extract(t.metadata, '$.normalized_name')) AS qa_count,
  (SELECT count(*) FROM documents q
    WHERE q.collection = '_memory_qa'
      AND json_extract(q.metadata, '$.topic_key') = json_extract(t.metadata, '$.normalized_name')
      AND coalesce(json_extract(q.metadata, '$.merged'), 0) = 0) AS unmerged_count,
  (SELECT count(*) FROM documents k
    WHERE k.collection = '_memory_knowledge'
      AND json_extract(k.metadata, '$.topic_key') = json_extract(t.metadata, '$.normalized_name')) AS knowledge_count,
  t.created_at,
  t.updated_at
FROM documents t
WHERE t.collection = '_memory_topics';

-- One row per question–answer record. topic is the topic's name (topics_v.name); merged is 1
-- once the record was merged into knowledge (merged_into is that knowledge record's id), else 0.
-- Merged records are kept here, though searches no longer return them.
CREATE VIEW qa_v AS
SELECT
  id,
  json_extract(metadata, '$.topic') AS topic,
  json_extract(metadata, '$.question') AS question,
  json_extract(metadata, '$.answer') AS answer,
  coalesce(json_extract(metadata, '$.merged'), 0) AS merged,
  json_extract(metadata, '$.merged_into') AS merged_into,
  created_at,
  updated_at
FROM documents
WHERE collection = '_memory_qa';

-- One row per knowledge record (similar answers merged into one text). source_qa_ids is a JSON
-- array of qa_v ids (join with json_each(source_qa_ids)); source_count is its length.
CREATE VIEW knowledge_v AS
SELECT
  id,
  json_extract(metadata, '$.topic') AS topic,
  content AS text,
  coalesce(json_extract(metadata, '$.source_qa_ids'), '[]') AS source_qa_ids,
  coalesce(json_array_length(metadata, '$.source_qa_ids'), 0) AS source_count,
  created_at,
  updated_at
FROM documents
WHERE collection = '_memory_knowledge';
