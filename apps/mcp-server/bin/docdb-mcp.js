#!/usr/bin/env node
// The docdb-mcp command. It exists before the first build, so `pnpm install` can link it
// (dist/ is made by `pnpm build`).
import "../dist/bin.js";
