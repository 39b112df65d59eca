// Searches a freshly loaded index for a few of its own terms, its answers thrown away, so that V8 has
// compiled the ranking and phrase loops before the first real find (which otherwise ran 3–10× slower).
import type { KeywordIndex } from "./index.js";
import { forgetFinds, searchIndex } from "./search.js";

/** Searches per warm-up: enough calls for V8 to optimise the loops as whole functions, not only mid-loop. */
export const WARM_SEARCHES = 24;
/** A warm-up stops after this much searching (pauses not counted) even if searches are left (a slow machine, a huge index). */
const WARM_MS = 1500;

/**
 * Runs WARM_SEARCHES searches over `index` (OR of single terms, two- and three-token phrases, as
 * queries are), `pause` awaited between them (resolving to false stops: the store is closing);
 * then forgets their phrase matches and bounds, so no later find is answered from them. Returns
 * how many searches ran.
 */
export async function warmUp(index: KeywordIndex, pause: () => Promise<unknown>): Promise<number> {
  if (index.rows === 0) return 0;
  // Terms held by 0.5–5% of rows: lists long enough for the loops to run hot, short enough to be quick.
  const terms = index.termsHeld(Math.ceil(index.rows / 200), Math.ceil(index.rows / 20), 6);
  if (terms.length < 3) return 0;
  const term = (i: number): string => terms[i % terms.length] as string;
  let searching = 0;
  let searches = 0;
  try {
    for (let i = 0; i < WARM_SEARCHES && searching < WARM_MS; i++) {
      const started = performance.now();
      const [a, b, c] = [term(i), term(i + 1), term(i + 2)];
      const query =
        i % 2 === 0
          ? {
              any: [[a], [b], [c]],
              phrases: [
                [a, b],
                [b, c],
              ],
            }
          : { any: [[a], [b, c, a]], phrases: [[a, b, c]] };
      // Options shaped as a store's finds pass them (compiled code is specialised to shapes).
      searchIndex(index, query, 10, { ln: Math.log, totals: { rows: index.rows, tokens: index.tokens } });
      searches++;
      // Each search as a first one: no phrase match kept from the one before.
      forgetFinds(index);
      searching += performance.now() - started;
      if ((await pause()) === false) break;
    }
  } finally {
    forgetFinds(index);
  }
  return searches;
}

let warmed = false;

/**
 * warmUp() until one index this process loads or builds could be searched (compiled code serves
 * every index after). Never fails the load: a search that cannot run here fails the same way on a
 * find, which reports it.
 */
export async function warmUpOnce(index: KeywordIndex, pause: () => Promise<unknown>): Promise<number> {
  if (warmed) return 0;
  let ran = 0;
  try {
    ran = await warmUp(index, pause);
  } catch {
    forgetFinds(index);
    return 0;
  }
  if (ran > 0) warmed = true;
  return ran;
}
