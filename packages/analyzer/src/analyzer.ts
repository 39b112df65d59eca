import { stemmer } from "stemmer";
import { reservedWords } from "./reserved-words.js";
import { forEachWord } from "./segment.js";
import { ENGLISH_STOP_WORDS, JAPANESE_QUESTION_WORDS, JAPANESE_STOP_WORDS } from "./stopwords.js";

/**
 * Text analysis for the keyword index: turns text into the terms every storage engine indexes,
 * and a user's query into a structured keyword query over those same terms. Engines never see
 * raw text on the keyword side, so Japanese and English rank the same way on every engine.
 *
 * One analyzer serves Japanese, English and source code at once, because documents mix them
 * (a Japanese design note quoting `getUserName`, an English README with Japanese examples).
 * Every rule below is a general one, applied identically to documents and queries:
 *
 * - NFKC: full-width Latin and digits become ASCII, half-width katakana full width, ligatures
 *   and compatibility forms their plain letters. Then lower case (after identifier splitting,
 *   which needs the case). Accents on Latin letters are folded (café = cafe).
 * - Words: `Intl.Segmenter('ja')` (ICU's dictionary segmentation for Japanese, UAX #29 for the
 *   rest). It ships with Node: no dictionary to load, and it measured as good as kuromoji here.
 *   ASCII and Latin letters are cut by the same rules in JavaScript (segment.ts): the same words,
 *   faster; ICU only sees the stretches with other characters.
 * - Katakana: ICU cuts unknown katakana words at dictionary sub-words (マルセル → マル|セル,
 *   サターン → サタ|ーン), so adjacent katakana pieces are joined back into one word, and a
 *   trailing long vowel mark is dropped from katakana words of 4+ characters (コンピューター =
 *   コンピュータ, サーバー = サーバ; the rule of Lucene's JapaneseKatakanaStemFilter).
 * - Okurigana: a word of kanji followed by hiragana (an inflected verb or adjective: 始まった,
 *   始まり, 美しい) is reduced to its kanji stem, so its inflections meet — the Japanese
 *   counterpart of English stemming.
 * - English: possessives dropped (Crohn's = Crohn, as Lucene's EnglishPossessiveFilter does), then
 *   Porter stemming (the original algorithm, as SQLite's FTS5 `porter` tokenizer applies it) of
 *   every all-letter ASCII word, done here so that every engine indexes the same stems.
 * - Code identifiers: `getUserName`, `get_user_name` and `HTTPServer` are indexed as the joined
 *   word (getusername) followed by their parts (get, user, name), so the identifier is found in
 *   any naming convention, and its words find it too. A query for a snake_case name asks for
 *   the joined form or the parts in sequence; camelCase parts count one by one (mixed-case
 *   names in prose, like ClpC or RhoA, share their parts with relatives). Hyphenated Latin words (IL-6, COVID-19,
 *   e-mail, my-component) also get their joined form (il6) after their parts.
 * - Member paths: UAX #29 keeps letters joined by `.` or `:` in one word (`this.store.writeDocuments`,
 *   `PaymentService.retryCharge`, `e.g`), which would hide the names in it. Each name is a word of
 *   its own (this, store, writedocuments with write and documents), followed by the whole path
 *   (this.store.writedocuments), so a query naming a method finds its calls and a query naming
 *   the path finds it exactly.
 *
 * Queries (see buildKeywordQuery) drop words that carry no information (particles, stop words,
 * question words), OR the rest together, and add a small proximity bonus for query words that
 * appear in the same order in a passage.
 */

const KATAKANA_WORD = /^[\u30a1-\u30fa\u30fc-\u30ff]+$/u; // katakana letters and ー, not the middle dot ・
const HIRAGANA_ONLY = /^[\u3040-\u309f\u30fc]+$/u;
const KANJI_THEN_HIRAGANA = /^([\p{Script=Han}々〆〇]+)\p{Script=Hiragana}+$/u;
const CASE_HUMP = /[a-z0-9][A-Z]|[A-Z][A-Z][a-z]/;
const HUMP_BOUNDARY = /(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/;
// Latin (and Greek, for scientific names like TNF-α) words joined by hyphens.
const HYPHENATED = /[0-9A-Za-z\u00c0-\u024f\u0370-\u03ff]+(?:-[0-9A-Za-z\u00c0-\u024f\u0370-\u03ff]+)+/gu;
const HAS_LETTER = /\p{L}/u;
// English possessive (Crohn's, patient’s, animals'): the word alone is what passages contain.
const POSSESSIVE = /(?<=\p{L})['’](?:s)?$/u;
const HAS_WORD_CHARACTER = /[\p{L}\p{N}]/u;
const ASCII = /^[\x00-\x7f]*$/;
/** Names joined by `.` or `:` into one word by the segmenter (UAX #29 joins letters across them). */
const MEMBER_PATH = /\p{L}[.:]\p{L}/u;
const PATH_SEPARATOR = /(?<=\p{L})[.:](?=\p{L})/u;
/** Katakana words shorter than this keep their final ー (ツリー is not ツリ). */
const MIN_KATAKANA_STEM_LENGTH = 4;
/**
 * Hiragana-only words shorter than this are particles and inflection endings (は, の, した, ます)
 * that match nearly every Japanese passage; longer ones may be content (さくら, どんぐり), and
 * their IDF decides their weight. Dropping the short ones from queries also cuts latency tenfold.
 */
const MIN_HIRAGANA_QUERY_WORD = 3;

export interface Term {
  /** The indexed word. */
  text: string;
  /**
   * True for the extra forms added beside a word (identifier parts, hyphen-joined forms): they
   * are searchable but not part of the running word sequence that proximity phrases follow.
   */
  added: boolean;
  /**
   * For a snake_case identifier (its joined form and its parts): the parts, which the index
   * holds right after the joined form. Queries search them as a phrase, not one by one.
   */
  parts?: string[];
}

/**
 * Bumped whenever the terms produced for a text change: an engine whose keyword index was built
 * by another version rebuilds it from the stored chunk text.
 */
export const ANALYZER_VERSION = 3;

const LATIN_WITH_MARKS = /[\u00c0-\u024f\u1e00-\u1eff]/u;
const STEMMABLE = /^[a-z]{3,}$/;

/** Stems already computed: words follow Zipf's law, so a small cache answers most lookups. */
const stems = new Map<string, string>();
const MAX_CACHED_STEMS = 100_000;

function stem(word: string): string {
  let result = stems.get(word);
  if (result === undefined) {
    result = stemmer(word);
    if (stems.size >= MAX_CACHED_STEMS) stems.clear();
    stems.set(word, result);
  }
  return result;
}

/** Accents off Latin letters (not off kana: が stays が), then Porter for plain English words. */
function finalTerm(text: string): string {
  const folded = LATIN_WITH_MARKS.test(text)
    ? text
        .normalize("NFD")
        .replace(/(?<=[A-Za-z])\p{M}+/gu, "")
        .normalize("NFC")
    : text;
  return STEMMABLE.test(folded) ? stem(folded) : folded;
}

/** NFKC and lower case: the normalisation every term goes through. */
export function normalize(text: string): string {
  return text.normalize("NFKC").toLowerCase();
}

function stemKatakana(word: string): string {
  return word.length >= MIN_KATAKANA_STEM_LENGTH && word.endsWith("ー") ? word.slice(0, -1) : word;
}

function splitCase(word: string): string[] {
  return word.split(HUMP_BOUNDARY).map((p) => p.toLowerCase());
}

/** Joined forms of hyphenated Latin words, keyed by the offset where the hyphenated word ends. */
function hyphenJoins(text: string): Map<number, string> {
  const joins = new Map<number, string>();
  if (!text.includes("-")) return joins;
  for (const match of text.matchAll(HYPHENATED)) {
    const word = match[0];
    // Number ranges (17-25) are left alone.
    if (!HAS_LETTER.test(word)) continue;
    joins.set((match.index ?? 0) + word.length, word.replaceAll("-", "").toLowerCase());
  }
  return joins;
}

/** What `scan` knows of a term's final form (see finalTerm). */
const ANY = 0; // may need accent folding or stemming
const PLAIN = 1; // lower-case ASCII letters and digits: may need stemming only
const FINAL = 2; // kana and kanji: already final

type Emit = (text: string, added: boolean, parts: string[] | undefined, kind: number) => void;

/** Kana (not the middle dot) and CJK ideographs only: no case, no Latin, no underscore or quote. */
const CJK_ONLY = /^[\u3041-\u30fa\u30fc-\u30ff\u3400-\u4dbf\u4e00-\u9fff\u3005-\u3007]+$/u;

/**
 * The terms of one word (a word-like segment that is not katakana, CJK only or a member path),
 * emitted in order. Returns the first (the joined form of an identifier), if any.
 */
function wordTerms(segment: string, emit: Emit): string | undefined {
  const underscore = segment.includes("_");
  if (underscore && /[^_]_+[^_]/.test(segment)) {
    // snake_case / SCREAMING_CASE: code. The joined form, then the words in order.
    const parts = segment
      .split("_")
      .filter((p) => p !== "")
      .flatMap(splitCase);
    const joined = parts.join("");
    emit(joined, false, parts, ANY);
    for (const part of parts) emit(part, true, parts, ANY);
    return joined;
  }
  if (CASE_HUMP.test(segment)) {
    // camelCase and mixed-case names (getUserName, HTTPServer, ClpC, RhoA): the joined form,
    // then each part as a word of its own, so ClpC also meets ClpP through "clp".
    const parts = splitCase(segment);
    const joined = parts.join("");
    emit(joined, false, undefined, ANY);
    for (const part of parts) emit(part, true, undefined, ANY);
    return joined;
  }
  let word = segment.toLowerCase();
  if (word.includes("'") || word.includes("’")) word = word.replace(POSSESSIVE, "");
  const stem = KANJI_THEN_HIRAGANA.exec(word);
  const text = stem ? (stem[1] as string) : underscore ? word.replaceAll("_", "") : word;
  if (text === "") return undefined;
  emit(text, false, undefined, ANY);
  return text;
}

/**
 * The terms of `source` (already NFKC), in order, with the extra forms described above. With
 * `reserved` (the reserved words of a code chunk's language), those words standing alone are
 * left out.
 */
function scan(source: string, reserved: ReadonlySet<string> | undefined, emit: Emit): void {
  const joins = hyphenJoins(source);
  let katakana = "";
  let katakanaEnd = -1;
  const flushKatakana = () => {
    if (katakana !== "") emit(stemKatakana(katakana), false, undefined, FINAL);
    katakana = "";
  };
  const addJoin = (end: number) => {
    const joined = joins.get(end);
    if (joined !== undefined) emit(joined, true, undefined, ANY);
  };

  // Only word-like segments arrive: a gap between two katakana words (a space, a ・) shows in
  // their offsets, which is where the katakana run ends.
  forEachWord(source, (segment, index, plain) => {
    const end = index + segment.length;
    if (plain) {
      // Lower-case ASCII letters and digits: none of the rules below can change it.
      flushKatakana();
      if (!reserved?.has(segment)) emit(segment, false, undefined, PLAIN);
      addJoin(end);
      return;
    }
    // Kana and kanji start at U+3005: a word that starts lower (Latin, code) skips their checks.
    const cjk = segment.charCodeAt(0) >= 0x3005;
    if (cjk && KATAKANA_WORD.test(segment)) {
      if (katakana !== "" && index !== katakanaEnd) flushKatakana();
      katakana += segment;
      katakanaEnd = end;
      return;
    }
    flushKatakana();
    if (cjk && CJK_ONLY.test(segment)) {
      // Japanese: only the okurigana rule applies.
      const stem = KANJI_THEN_HIRAGANA.exec(segment);
      emit(stem ? (stem[1] as string) : segment, false, undefined, FINAL);
      addJoin(end);
      return;
    }
    if (MEMBER_PATH.test(segment)) {
      // A member path (this.store.writeDocuments, PaymentService.retryCharge, os.path): each
      // name is a word of its own, and the whole path, names joined by dots, an extra form.
      // Of the names, only the first can be a reserved word (this, self); the rest are members.
      const names = segment.split(PATH_SEPARATOR);
      const joined: string[] = [];
      names.forEach((name, i) => {
        if (i === 0 && reserved?.has(name)) return;
        const first = wordTerms(name, emit);
        if (first !== undefined) joined.push(first);
      });
      if (joined.length > 1) emit(joined.join("."), true, undefined, ANY);
    } else if (!reserved?.has(segment)) wordTerms(segment, emit);
    addJoin(end);
  });
  flushKatakana();
}

/** ASCII is its own NFKC form; normalising costs more than checking. */
function nfkc(text: string): string {
  return ASCII.test(text) ? text : text.normalize("NFKC");
}

/**
 * The terms of a text in order, with the extra forms described above. With the `language` of a
 * chunk of code, that language's reserved words standing alone (`return`, `const`, `self` in
 * `self.x`) are left out; see reserved-words.ts.
 */
export function terms(text: string, language?: string | null): Term[] {
  const out: Term[] = [];
  scan(nfkc(text), reservedWords(language), (term, added, parts) => {
    out.push(parts ? { text: term, added, parts } : { text: term, added });
  });
  return out;
}

/**
 * The indexed terms of a text, in order: every term of `terms`, accents folded and English
 * stemmed. `language`: the text is a chunk of code in that language (its reserved words are left out).
 */
export function words(text: string, language?: string | null): string[] {
  const out: string[] = [];
  scan(nfkc(text), reservedWords(language), (term, _added, _parts, kind) => {
    out.push(indexForm(term, kind));
  });
  return out;
}

/** A term of `scan` in the form the index holds (see finalTerm), skipping what its kind rules out. */
function indexForm(term: string, kind: number): string {
  if (kind === FINAL) return term;
  if (kind === PLAIN) return STEMMABLE.test(term) ? stem(term) : term;
  return finalTerm(term);
}

/** The terms of a title or a chunk separated by spaces (how engines that take text store them). */
export function analyzeForIndex(text: string, language?: string | null): string {
  // Joined from a list: a string grown term by term is a rope of hundreds of pieces that every
  // later reader (the SQLite driver) must flatten first, which measured 10-15% slower ingest.
  return words(text, language).join(" ");
}

/**
 * What a chunk contributes to the keyword index, analysed once wherever is convenient (a worker
 * thread, outside a write transaction) and handed to any engine. Terms never hold whitespace, so
 * each field is its terms joined by single spaces (cheap to pass between threads, and what an
 * engine that tokenizes on spaces stores as it is); `splitTerms` gives the list back.
 */
export interface IndexTerms {
  /** The ANALYZER_VERSION that produced the terms: an engine analyses again on another one. */
  version: number;
  /**
   * The weighted field: `words(title)`, then the words of the chunk's heading, code symbols and
   * documentation, space-separated.
   */
  title: string;
  /** `words(text, language)`, space-separated. */
  body: string;
}

/** What of a chunk besides its text goes into its index terms (the fields of a stored chunk). */
export interface IndexedChunk {
  heading?: string | null;
  /** Code: the symbol of the declaration the chunk holds. */
  symbol?: string | null;
  /** Code: every declaration a chunk of several holds (then indexed instead of `symbol`). */
  symbols?: readonly { symbol: string }[] | null;
  /** Code: the documentation of its declarations. */
  doc?: string | null;
  /** Code: the chunk's language (its reserved words are left out of the body). */
  language?: string | null;
}

/** The terms of an IndexTerms field as a list. */
export function splitTerms(field: string): string[] {
  return field === "" ? [] : field.split(" ");
}

/**
 * The index terms of a chunk: title = the document title, the chunk's heading, its code symbols
 * (all it holds, or its one symbol) and their documentation, weighted as one; body = the text, a
 * code chunk's without its language's reserved words. `titleTerms` (`analyzeForIndex(title)`)
 * may be given when several chunks share a title: the words of a document title are then
 * computed once.
 */
export function indexTerms(
  title: string | null | undefined,
  chunk: IndexedChunk,
  text: string,
  titleTerms: string = title ? analyzeForIndex(title) : "",
): IndexTerms {
  const parts = titleTerms === "" ? [] : [titleTerms];
  const symbols = chunk.symbols && chunk.symbols.length > 0 ? chunk.symbols.map((s) => s.symbol) : [chunk.symbol];
  for (const extra of [chunk.heading, ...symbols, chunk.doc]) {
    if (!extra) continue;
    const terms = analyzeForIndex(extra);
    if (terms !== "") parts.push(terms);
  }
  return { version: ANALYZER_VERSION, title: parts.join(" "), body: analyzeForIndex(text, chunk.language) };
}

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
