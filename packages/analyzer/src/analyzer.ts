import { stemmer } from "stemmer";
import { reservedWords } from "./reserved-words.js";
import { forEachWord } from "./segment.js";

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
const KANJI_THEN_HIRAGANA = /^([\p{Script=Han}々〆〇]+)\p{Script=Hiragana}+$/u;
const CASE_HUMP = /[a-z0-9][A-Z]|[A-Z][A-Z][a-z]/;
const HUMP_BOUNDARY = /(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/;
// Latin (and Greek, for scientific names like TNF-α) words joined by hyphens.
const HYPHENATED = /[0-9A-Za-z\u00c0-\u024f\u0370-\u03ff]+(?:-[0-9A-Za-z\u00c0-\u024f\u0370-\u03ff]+)+/gu;
const HAS_LETTER = /\p{L}/u;
// English possessive (Crohn's, patient’s, animals'): the word alone is what passages contain.
const POSSESSIVE = /(?<=\p{L})['’](?:s)?$/u;
const ASCII = /^[\x00-\x7f]*$/;
/** Names joined by `.` or `:` into one word by the segmenter (UAX #29 joins letters across them). */
const MEMBER_PATH = /\p{L}[.:]\p{L}/u;
const PATH_SEPARATOR = /(?<=\p{L})[.:](?=\p{L})/u;
/** Katakana words shorter than this keep their final ー (ツリー is not ツリ). */
const MIN_KATAKANA_STEM_LENGTH = 4;

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

/**
 * Last letters at which no step of Porter's algorithm changes a word: every suffix it removes or
 * rewrites ends in one of c d e g i l m n r s t u y. A word ending in another letter is its own
 * stem, found without a lookup (which, for a fresh string, costs more than this check).
 */
export const OWN_STEM_ENDINGS = "abfhjkopqvwxz";
const OWN_STEM = new Uint8Array(128);
for (const letter of OWN_STEM_ENDINGS) OWN_STEM[letter.charCodeAt(0)] = 1;

function stem(word: string): string {
  if (OWN_STEM[word.charCodeAt(word.length - 1)] === 1) return word;
  let result = stems.get(word);
  if (result === undefined) {
    result = stemmer(word);
    if (stems.size >= MAX_CACHED_STEMS) stems.clear();
    stems.set(word, result);
  }
  return result;
}

/** Accents off Latin letters (not off kana: が stays が), then Porter for plain English words. */
export function finalTerm(text: string): string {
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
