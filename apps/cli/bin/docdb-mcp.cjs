#!/usr/bin/env node
// docdb-mcp, from the CLI package too: a global install of @docdb/cli puts only the CLI's own
// bins on PATH, so it names the MCP server's program (the @docdb/mcp-server it depends on) as
// well. CommonJS, like the launcher it loads.
"use strict";
const { dirname, join } = require("node:path");

require(join(dirname(require.resolve("@docdb/mcp-server/package.json")), "dist", "bin.js"));
