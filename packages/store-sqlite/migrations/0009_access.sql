-- docdb schema, version 9: scoped access tokens (a SHA-256 hash, never the token) and the audit
-- trail of writes. Core keeps both in the location's reserved server database ("_docdb"); the
-- tables exist (empty) in every database so that one schema serves all.
CREATE TABLE IF NOT EXISTS access_tokens (
  name TEXT PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  databases TEXT NOT NULL,          -- JSON: "*" or an array of names
  access TEXT NOT NULL CHECK (access IN ('read', 'write', 'admin')),
  limits TEXT NOT NULL DEFAULT '{}', -- JSON: {requestsPerMinute?, maxBodyBytes?}
  expires_at TEXT,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE TABLE IF NOT EXISTS audit_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at TEXT NOT NULL,
  actor TEXT NOT NULL,
  origin TEXT NOT NULL,
  action TEXT NOT NULL,
  database TEXT NOT NULL,
  detail TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_log_at ON audit_log (at);
