export { ANALYZER_VERSION, analyzeForIndex, buildKeywordQuery, type KeywordQuery, normalize, type Term, terms, words } from "./analyzer.js";
