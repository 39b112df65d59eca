/**
 * Words dropped from keyword QUERIES (never from the index, so a query made only of such words
 * still finds its passages: the analyzer then keeps them). They match a large share of passages,
 * so they add almost nothing to BM25 except time.
 */

/** Common English function words (the usual short list of Lucene/Snowball style stop lists). */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a an and are as at be been being but by can could did do does for from had has have how if in into is it its " +
    "may might must no nor not of on or should so such than that the their then there these they this those to " +
    "was were what when where which who whom why will with would also about over under more most other some any " +
    "each few only own same both all too just very"
  ).split(" "),
);

/**
 * Japanese function expressions of three or more kana (compound particles, auxiliaries, conjunctions).
 * Shorter hiragana-only words are dropped by length (see the analyzer), so they are not listed.
 */
export const JAPANESE_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "として という といった による により によって において における について に関する に対して に対する " +
    "とともに および または ならびに ながら ところ これら それら それぞれ しかし ただし さらに なお " +
    "ほとんど ものの できる られる される ある いる する なる ありま でしょう ください"
  ).split(" "),
);

/**
 * Japanese interrogatives. A question names what it asks for ("何年", "誰") but the passage
 * holding the answer does not contain the question word, so it only adds noise.
 */
export const JAPANESE_QUESTION_WORDS: ReadonlySet<string> = new Set(
  "何 なに 誰 だれ どなた いつ どこ どちら どっち どれ どの どんな どう どうして どういう なぜ 何故 いくつ いくら いかが".split(" "),
);
