export { ANALYZER_VERSION, analyzeForIndex, normalize, type Term, terms, words } from "./analyzer.js";
export { type IndexedChunk, type IndexTerms, indexTerms, splitTerms } from "./index-terms.js";
export { buildKeywordQuery, type KeywordQuery } from "./keyword-query.js";
export { nativeWordsStatus, useNativeWords, type WordBounds } from "./native-words.js";
export { forEachWord, icuWordList, isSimpleText, type WordVisitor, wordList } from "./segment.js";
