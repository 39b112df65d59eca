// A user's free text as a KeywordQuery over index terms: content words (particles, stop words and
// question words dropped), snake_case identifiers as phrases, and word-order phrases.
import { finalTerm, type Term, terms } from "./analyzer.js";
import { ENGLISH_STOP_WORDS, JAPANESE_QUESTION_WORDS, JAPANESE_STOP_WORDS } from "./stopwords.js";

const HIRAGANA_ONLY = /^[\u3040-\u309f\u30fc]+$/u;
const HAS_WORD_CHARACTER = /[\p{L}\p{N}]/u;
/**
 * Hiragana-only words shorter than this are particles and inflection endings (は, の, した, ます)
 * that match nearly every Japanese passage; longer ones may be content (さくら, どんぐり), and
 * their IDF decides their weight. Dropping the short ones from queries also cuts latency tenfold.
 */
const MIN_HIRAGANA_QUERY_WORD = 3;

/** 何年 asks for a year, 何色 for a colour: keep the counter, drop the question. */
function withoutQuestionPrefix(word: string): string {
  return word.length > 1 && word.startsWith("何") && !JAPANESE_QUESTION_WORDS.has(word) ? word.slice(1) : word;
}

function isContentWord(word: string): boolean {
  if (!HAS_WORD_CHARACTER.test(word)) return false;
  if (HIRAGANA_ONLY.test(word) && [...word].length < MIN_HIRAGANA_QUERY_WORD) return false;
  return !ENGLISH_STOP_WORDS.has(word) && !JAPANESE_STOP_WORDS.has(word) && !JAPANESE_QUESTION_WORDS.has(word);
}

/**
 * How many function words may sit between two query words for them to count as a phrase:
 * one, so 奈良の大仏 and "production of PGE2" are phrases and word order across a particle counts.
 */
const PROXIMITY_GAP = 1;

/**
 * A keyword query in index terms, for any engine to run. A sequence of several terms must match
 * in that order, next to each other (a phrase); a sequence of one term is a word.
 */
export interface KeywordQuery {
  /** The main query: a passage matches when it holds any of these; engines rank with BM25. */
  any: string[][];
  /**
   * Consecutive query words as phrases; empty when the query has fewer than two content words.
   * Engines add a small share of their BM25 score to the main score (a word-order bonus).
   */
  phrases: string[][];
}

function distinct(sequences: string[][]): string[][] {
  const seen = new Set<string>();
  return sequences.filter((s) => {
    const key = s.join(" ");
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The keyword query for a user's free text, or null when nothing searchable is left. Particles,
 * stop words and question words are dropped when other words remain. The result holds terms
 * only, never an engine's query syntax, so no user input can break an engine's parser.
 */
export function buildKeywordQuery(query: string): KeywordQuery | null {
  const all = terms(query)
    .map((t) => ({ ...t, text: withoutQuestionPrefix(t.text) }))
    .filter((t) => HAS_WORD_CHARACTER.test(t.text));
  // A snake_case identifier is searched as itself: its joined form, or its parts in sequence
  // (the index holds them right after the joined form, whatever the naming convention), as
  // Elasticsearch's word_delimiter_graph does at query time. Its parts one by one would match
  // every passage using one of its words (every "node" for NODE_MODULES).
  const alternatives = (t: Term): string[][] => (t.parts ? [[finalTerm(t.text)], t.parts.map(finalTerm)] : [[finalTerm(t.text)]]);
  // Parts are searched alone only when they say something: not snake_case parts (see above),
  // not single letters (the "m" of mRNA).
  const searchable = all.filter((t) => !(t.added && (t.parts || [...t.text].length < 2)));
  const content = searchable.filter((t) => isContentWord(t.text));
  const any = distinct((content.length > 0 ? content : searchable).flatMap(alternatives));
  if (any.length === 0) return null;

  const sequence = all.filter((t) => !t.added).map((t) => t.text);
  const phrases: string[][] = [];
  for (let i = 0; i < sequence.length; i++) {
    if (!isContentWord(sequence[i] as string)) continue;
    for (let j = i + 1; j < sequence.length && j <= i + 1 + PROXIMITY_GAP; j++) {
      if (isContentWord(sequence[j] as string)) {
        phrases.push(sequence.slice(i, j + 1).map(finalTerm));
        break;
      }
    }
  }
  return { any, phrases: distinct(phrases) };
}
