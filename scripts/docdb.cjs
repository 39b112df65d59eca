#!/usr/bin/env node
// `pnpm -s docdb …` (the root package.json's script): the built CLI, run from the folder the
// command was typed in. pnpm runs a script at the workspace root; INIT_CWD is where it was
// called, so relative paths (`insert ./notes.md`, `--data-dir`, `install`'s project files) mean
// what they would to a `docdb` on PATH. Only this script honours INIT_CWD: the CLI itself never
// does, since inside another project's npm script it names that project's root, not the
// folder a `cd` in the script moved to.
"use strict";
const { join } = require("node:path");

if (process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
require(join(__dirname, "..", "apps", "cli", "dist", "index.js"));
