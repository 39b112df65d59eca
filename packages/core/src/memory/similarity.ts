import { buildKeywordQuery } from "@docdb/analyzer";

/**
 * The content terms of a text as the keyword index sees them: NFKC, lower case, stemmed, stop
 * words and question words dropped (when anything else is left).
 */
export function contentTerms(text: string): Set<string> {
  const query = buildKeywordQuery(text);
  return new Set(query ? query.any.map((sequence) => sequence.join(" ")) : []);
}

/** |A ∩ B| / |A ∪ B|; 0 when both are empty. */
export function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  for (const term of a) if (b.has(term)) shared++;
  return shared / (a.size + b.size - shared);
}

/** The share of `part`'s terms found in `whole` (a topic's name inside a longer context). */
export function containment(part: Set<string>, whole: Set<string>): number {
  if (part.size === 0) return 0;
  let shared = 0;
  for (const term of part) if (whole.has(term)) shared++;
  return shared / part.size;
}

/** Cosine similarity of two vectors of one length. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * Groups of items linked by a similarity at or above `threshold` (connected components, so a
 * chain of close paraphrases is one group), each with at least two members, in first-seen
 * order. `score` is the lowest similarity that holds the group together.
 */
export function similarityGroups(
  count: number,
  similarity: (i: number, j: number) => number,
  threshold: number,
): { members: number[]; score: number }[] {
  const parent = Array.from({ length: count }, (_, i) => i);
  const find = (i: number): number => {
    let root = i;
    while (parent[root] !== root) root = parent[root] as number;
    parent[i] = root;
    return root;
  };
  const links: { i: number; j: number; s: number }[] = [];
  for (let i = 0; i < count; i++) {
    for (let j = i + 1; j < count; j++) {
      const s = similarity(i, j);
      if (s >= threshold) links.push({ i, j, s });
    }
  }
  // Strongest links first, so `score` is the weakest link a spanning tree needs.
  links.sort((x, y) => y.s - x.s);
  const weakest = new Map<number, number>();
  for (const { i, j, s } of links) {
    const a = find(i);
    const b = find(j);
    if (a === b) continue;
    const w = Math.min(weakest.get(a) ?? 1, weakest.get(b) ?? 1, s);
    parent[b] = a;
    weakest.set(a, w);
  }
  const groups = new Map<number, number[]>();
  for (let i = 0; i < count; i++) {
    const root = find(i);
    groups.set(root, [...(groups.get(root) ?? []), i]);
  }
  return [...groups.entries()]
    .filter(([, members]) => members.length >= 2)
    .map(([root, members]) => ({ members, score: weakest.get(root) ?? 1 }))
    .sort((x, y) => (x.members[0] as number) - (y.members[0] as number));
}
