-- docdb schema for PostgreSQL, version 9: scoped access tokens (a SHA-256 hash, never the token)
-- and the audit trail of writes. Core keeps both in the reserved server database ("_docdb", the
-- schema every server process over this PostgreSQL database shares); the tables exist (empty) in
-- every docdb schema so that one schema serves all.
CREATE TABLE access_tokens (
  name TEXT PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  databases TEXT NOT NULL,
  access TEXT NOT NULL CHECK (access IN ('read', 'write', 'admin')),
  limits TEXT NOT NULL DEFAULT '{}',
  expires_at TEXT,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE TABLE audit_log (
  id BIGSERIAL PRIMARY KEY,
  at TEXT NOT NULL,
  actor TEXT NOT NULL,
  origin TEXT NOT NULL,
  action TEXT NOT NULL,
  database TEXT NOT NULL,
  detail TEXT NOT NULL
);
CREATE INDEX audit_log_at ON audit_log (at);
