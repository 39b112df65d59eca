// Passages from ranked chunk hits: neighbouring chunks of one document merged, text cut to the
// character budget of an answer.
import type { ChunkHit } from "@docdb/store";
import { DocDBError } from "../errors.js";
import type { FindBudget, SearchResult } from "../types.js";
import { definedSymbol } from "./definitions.js";

/** Default total characters of passage text in one answer: a few pages, small beside an agent's context. */
export const DEFAULT_MAX_CHARS = 6_000;
/** The largest budget a caller may ask for. */
export const MAX_MAX_CHARS = 200_000;
/** A passage cut shorter than this is left out (reference only) rather than shown as a stub. */
const MIN_CUT_CHARS = 120;

export function validateMaxChars(value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_CHARS;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > MAX_MAX_CHARS) {
    throw new DocDBError("INVALID_REQUEST", `max_chars must be an integer from 0 to ${MAX_MAX_CHARS}, got ${String(value)}`);
  }
  return value;
}

/** One ranked chunk with what its passage needs. */
export interface RankedHit {
  hit: ChunkHit;
  score: number;
  distance?: number;
}

/** Chunks of one document that overlap or touch, merged; `best` is the highest-scoring one. */
interface Group {
  docId: string;
  best: RankedHit;
  members: RankedHit[];
  start: number;
  end: number;
  lastIdx: number;
}

/** A passage of one chunk. */
function singleGroup(r: RankedHit): { group: Group; single: boolean } {
  return { group: { docId: r.hit.docId, best: r, members: [r], start: r.hit.start, end: r.hit.end, lastIdx: r.hit.idx }, single: true };
}

/** Whether no two hits are of one document (compared pairwise: a find's few hits need no set). */
function distinctDocuments(ranked: RankedHit[]): boolean {
  if (ranked.length > 64) return false;
  for (let i = 1; i < ranked.length; i++) {
    const docId = (ranked[i] as RankedHit).hit.docId;
    for (let j = 0; j < i; j++) if ((ranked[j] as RankedHit).hit.docId === docId) return false;
  }
  return true;
}

/**
 * Groups ranked chunks into passages: chunks of one document that overlap or are neighbours
 * (consecutive chunk indices, or touching offsets) become one passage spanning them all. The
 * passage keeps its best chunk's score and heading and lists every chunk id it covers, in
 * document order. Passages come back in the order of their best chunk.
 */
export function groupPassages(ranked: RankedHit[], merge: boolean): { group: Group; single: boolean }[] {
  // Hits of distinct documents (a vector find's usual top 10) group as they are, in their order.
  if (!merge || distinctDocuments(ranked)) return ranked.map(singleGroup);
  const byDoc = new Map<string, RankedHit[]>();
  for (const r of ranked) {
    const list = byDoc.get(r.hit.docId) ?? [];
    list.push(r);
    byDoc.set(r.hit.docId, list);
  }
  const groups: Group[] = [];
  for (const [docId, hits] of byDoc) {
    const ordered = [...hits].sort((a, b) => a.hit.start - b.hit.start || a.hit.idx - b.hit.idx);
    let current: Group | undefined;
    for (const r of ordered) {
      const touches = current && (r.hit.start <= current.end || r.hit.idx === current.lastIdx + 1);
      if (current && touches) {
        current.members.push(r);
        current.end = Math.max(current.end, r.hit.end);
        current.lastIdx = Math.max(current.lastIdx, r.hit.idx);
        if (r.score > current.best.score) current.best = r;
      } else {
        current = { docId, best: r, members: [r], start: r.hit.start, end: r.hit.end, lastIdx: r.hit.idx };
        groups.push(current);
      }
    }
  }
  const order = new Map(ranked.map((r, i) => [r.hit.id, i]));
  groups.sort((a, b) => (order.get(a.best.hit.id) ?? 0) - (order.get(b.best.hit.id) ?? 0));
  return groups.map((group) => ({ group, single: group.members.length === 1 }));
}

/**
 * The hits of the first `count` passages: the shortest prefix of `ranked` that groups into
 * `count` passages (neighbouring chunks merged count once), less the chunks of any passage
 * beyond them, and their passages (`groups`, as `groupPassages` makes them from those hits). Fewer
 * when `ranked` runs out; `complete` says whether `count` were found.
 */
export function firstPassages(
  ranked: RankedHit[],
  count: number,
  merge: boolean,
): { hits: RankedHit[]; complete: boolean; groups: { group: Group; single: boolean }[] } {
  if (!merge) {
    const hits = ranked.slice(0, count);
    return { hits, complete: ranked.length >= count, groups: groupPassages(hits, false) };
  }
  let n = Math.min(count, ranked.length);
  const head = n === ranked.length ? ranked : ranked.slice(0, n);
  // The first `count` of distinct documents are `count` passages of one chunk each.
  if (distinctDocuments(head)) return { hits: head, complete: n >= count, groups: head.map(singleGroup) };
  let groups = groupPassages(head, true);
  // Each added chunk makes at most one more passage, so adding the shortfall never overshoots.
  while (groups.length < count && n < ranked.length) {
    n = Math.min(ranked.length, n + (count - groups.length));
    groups = groupPassages(ranked.slice(0, n), true);
  }
  const first = groups.slice(0, count);
  const kept = new Set(first.flatMap(({ group }) => group.members.map((m) => m.hit.id)));
  return { hits: ranked.slice(0, n).filter((r) => kept.has(r.hit.id)), complete: groups.length >= count, groups: first };
}

/**
 * A passage as a search result, its text re-sliced from the document when chunks were merged. Its
 * symbol is its best chunk's, or, when the query named one packed into that chunk, that one.
 */
export function toPassage(group: Group, content: string | undefined, named?: string): SearchResult {
  const { best } = group;
  const hit = best.hit;
  const symbol =
    (named !== undefined ? definedSymbol(hit, named) : undefined) ??
    (hit.symbol ? { symbol: hit.symbol, kind: hit.symbolKind } : undefined);
  const single = group.members.length === 1;
  const text = single || content === undefined ? hit.text : content.slice(group.start, group.end);
  const ordered = single ? group.members : [...group.members].sort((a, b) => a.hit.start - b.hit.start);
  // Where the passage starts in the original file (an extracted document's page, slide, sheet…).
  const locator = (single ? hit : ordered[0]?.hit)?.locator;
  // One object, its optional fields set in a fixed order (no object made per optional field).
  const chunkIds = ordered.map((m) => m.hit.id);
  const start = single ? hit.start : group.start;
  const end = single ? hit.end : group.end;
  const { score, distance } = best;
  const passage: SearchResult =
    distance !== undefined
      ? { chunk_id: hit.id, chunk_ids: chunkIds, doc_id: hit.docId, text, score, distance, start, end, metadata: hit.metadata }
      : { chunk_id: hit.id, chunk_ids: chunkIds, doc_id: hit.docId, text, score, start, end, metadata: hit.metadata };
  if (hit.title) passage.title = hit.title;
  if (hit.source) passage.source = hit.source;
  if (hit.collection) passage.collection = hit.collection;
  if (hit.heading) passage.heading = hit.heading;
  let lineStart: number | undefined;
  let lineEnd: number | undefined;
  for (const { hit: member } of group.members) {
    if (member.lineStart !== null && (lineStart === undefined || member.lineStart < lineStart)) lineStart = member.lineStart;
    if (member.lineEnd !== null && (lineEnd === undefined || member.lineEnd > lineEnd)) lineEnd = member.lineEnd;
  }
  if (lineStart !== undefined) passage.line_start = lineStart;
  if (lineEnd !== undefined) passage.line_end = lineEnd;
  if (hit.language) passage.language = hit.language;
  if (symbol) passage.symbol = symbol.symbol;
  if (symbol?.kind) passage.symbol_kind = symbol.kind;
  if (locator) passage.locator = locator;
  return passage;
}

/** Cuts text to at most `limit` characters, at a line or word break when one is near the end. */
function cut(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const head = text.slice(0, limit);
  const floor = Math.floor(limit * 0.8);
  const line = head.lastIndexOf("\n");
  if (line >= floor) return head.slice(0, line);
  // The last white space (where /\s\S*$/ matches), looked for only as far back as `floor`.
  for (let i = head.length - 1; i >= floor; i--) if (isSpace(head.charCodeAt(i))) return head.slice(0, i);
  return head;
}

/** Whether a UTF-16 code unit is white space as a regular expression's \s means it. */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/**
 * Fits passages into a budget of `maxChars` characters of text, best first: a passage that does
 * not fit whole is cut (`truncated`, `text` a prefix), and once too little is left, the rest
 * come back as references (`text` left out, `truncated`). With `includeText` false every
 * passage is a reference. `start`/`end` always span the whole passage, for get_document.
 */
export function fitBudget(
  passages: SearchResult[],
  maxChars: number,
  includeText: boolean,
): { results: SearchResult[]; budget: FindBudget } {
  let used = 0;
  let cutCount = 0;
  let omitted = 0;
  const results = passages.map((p): SearchResult => {
    if (!includeText) {
      const { text: _text, ...reference } = p;
      return reference;
    }
    const text = p.text ?? "";
    const left = maxChars - used;
    if (text.length <= left) {
      used += text.length;
      return p;
    }
    if (left >= MIN_CUT_CHARS) {
      const shown = cut(text, left);
      used += shown.length;
      cutCount++;
      return { ...p, text: shown, truncated: true };
    }
    omitted++;
    const { text: _text, ...reference } = p;
    return { ...reference, truncated: true };
  });
  return { results, budget: { max_chars: maxChars, chars: used, cut: cutCount, omitted } };
}

/** A sentence for the answer when the budget changed it, or undefined. */
export function describeBudget(budget: FindBudget): string | undefined {
  if (budget.cut === 0 && budget.omitted === 0) return undefined;
  const parts = [
    budget.cut > 0 ? `${budget.cut} passage${budget.cut === 1 ? " was" : "s were"} cut` : "",
    budget.omitted > 0 ? `${budget.omitted} came back as references without text` : "",
  ].filter(Boolean);
  return `the answer is limited to ${budget.max_chars} characters of text: ${parts.join(" and ")}; read more with get_document and the passage's start/end (or raise max_chars)`;
}
