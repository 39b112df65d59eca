#!/usr/bin/env node
import { buildProgram } from "./program.js";

// `docdb … | head` closes stdout early: that is the reader's choice, not a failure.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

await buildProgram().parseAsync(process.argv);
