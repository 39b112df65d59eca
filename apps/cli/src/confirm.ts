import { createInterface } from "node:readline/promises";
import { DocDBError } from "@docdb/core";

/**
 * Asks a yes/no question on the terminal. Without a terminal there is nobody to ask, so a
 * destructive command refuses rather than guessing: the caller passes `-y` to confirm.
 */
export async function confirm(question: string, flag = "-y"): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    throw new DocDBError("INVALID_REQUEST", `not a terminal, so no one can confirm: pass ${flag} to go ahead`);
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
