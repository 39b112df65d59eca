export {
  ANALYZER_VERSION,
  analyzeForIndex,
  buildKeywordQuery,
  type IndexedChunk,
  type IndexTerms,
  indexTerms,
  type KeywordQuery,
  normalize,
  splitTerms,
  type Term,
  terms,
  words,
} from "./analyzer.js";
export { forEachWord, icuWordList, isSimpleText, type WordVisitor, wordList } from "./segment.js";
