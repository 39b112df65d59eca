#!/usr/bin/env node
// The docdb-mcp command. It exists before the first build, so `pnpm install` can link it
// (dist/ is made by `pnpm build`). CommonJS like the launcher it loads, so Node starts it
// without its ES module loader.
require("../dist/bin.js");
