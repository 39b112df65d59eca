#!/usr/bin/env node
import { buildProgram } from "./program.js";

// `docdb … | head` closes stdout early: that is the reader's choice, not a failure.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

// Not a top-level await: the program is bundled as CommonJS (see scripts/launcher.cjs); a
// rejection still ends the process with the error, as an unhandled one.
void buildProgram().parseAsync(process.argv);
