#!/usr/bin/env node
// Writes <dir>/tool-descriptors.json: docdb's own MCP tools as `tools/list` shows them for the
// default database, made from the built @docdb/mcp-server library. A program (`docdb-mcp`,
// `docdb serve`) reads it at start-up and answers `tools/list` without building the tools' zod
// schemas; each tool is loaded on its first call (see apps/mcp-server/src/tool-descriptors.ts).
// Run by the apps' `build` scripts after tsup, which empties dist/ first, so the file is always
// made from the same sources as the bundle beside it.
// Usage: node scripts/tool-descriptors.mjs <dir>
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node scripts/tool-descriptors.mjs <dir>");
  process.exit(2);
}
const { DEFAULT_DB_NAME } = await import("../packages/core/dist/index.js");
const { createDocdbTools, TOOL_DESCRIPTORS_FILE } = await import("../apps/mcp-server/dist/index.mjs");
// The tools only keep the DocDB for their calls; listing them needs none.
const registry = createDocdbTools(/** @type {any} */ ({}), { defaultDb: DEFAULT_DB_NAME });
const descriptors = { format: 1, default_db: DEFAULT_DB_NAME, tools: registry.list() };
writeFileSync(join(dir, TOOL_DESCRIPTORS_FILE), `${JSON.stringify(descriptors)}\n`);
