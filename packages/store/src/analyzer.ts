/**
 * Turns text into the space-separated words FTS5 indexes, and a user's query into a safe
 * MATCH expression. Japanese has no spaces, so words come from Intl.Segmenter.
 */
const segmenter = new Intl.Segmenter("ja", { granularity: "word" });
const HIRAGANA_ONLY = /^[\u3040-\u309f\u30fc]+$/u;

export function normalize(text: string): string {
  return text.normalize("NFKC").toLowerCase();
}

/** Word-like segments of the normalised text. */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const segment of segmenter.segment(normalize(text))) {
    if (segment.isWordLike) out.push(segment.segment);
  }
  return out;
}

/** The text FTS5 indexes for a chunk: its words separated by spaces. */
export function analyzeForIndex(text: string): string {
  return words(text).join(" ");
}

function quote(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/**
 * A MATCH expression for a free-text query: every distinct word quoted and OR-ed, so no user
 * input can break the FTS5 query syntax. Hiragana-only words (particles) are dropped when
 * other words remain: they match almost every Japanese passage. Null when nothing is left.
 */
export function buildMatchQuery(query: string): string | null {
  const all = [...new Set(words(query))];
  const content = all.filter((w) => !HIRAGANA_ONLY.test(w));
  const terms = content.length > 0 ? content : all;
  if (terms.length === 0) return null;
  return terms.map(quote).join(" OR ");
}
