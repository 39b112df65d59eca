import type { NewChunk, NewDocument } from "../types.js";

let counter = 0;

/** A sortable unique id like core's ULIDs (time order, then a counter). */
export function testId(prefix = "id"): string {
  counter++;
  return `${prefix}${Date.now().toString(36).padStart(10, "0")}${counter.toString(36).padStart(8, "0")}`;
}

export function unit(values: number[]): Float32Array {
  const norm = Math.hypot(...values) || 1;
  return Float32Array.from(values.map((v) => v / norm));
}

/** A seeded generator, so a failing case reproduces. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomUnit(next: () => number, dimensions: number): Float32Array {
  return unit(Array.from({ length: dimensions }, () => next() * 2 - 1));
}

export function cosineDistance(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += (a[i] as number) * (b[i] as number);
    na += (a[i] as number) ** 2;
    nb += (b[i] as number) ** 2;
  }
  return 1 - dot / Math.sqrt(na * nb);
}

/** A document whose chunks are the given texts, laid end to end. */
export function makeDocument(
  texts: string[],
  fields: Partial<NewDocument> = {},
  chunkFields: (i: number) => Partial<NewChunk> = () => ({}),
): { document: NewDocument; chunks: NewChunk[] } {
  const content = texts.join("\n");
  const id = fields.id ?? testId("doc");
  let offset = 0;
  const chunks = texts.map((text, idx) => {
    const chunk: NewChunk = { id: testId("chk"), idx, text, start: offset, end: offset + text.length, ...chunkFields(idx) };
    offset += text.length + 1;
    return chunk;
  });
  return {
    document: { id, title: `title of ${id}`, content, contentHash: `hash-${id}`, metadata: {}, ...fields },
    chunks,
  };
}
