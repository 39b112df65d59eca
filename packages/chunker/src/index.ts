export type { Chunk, ChunkOptions } from "./types.js";
export { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE } from "./types.js";
export { chunkText, chunkRange } from "./text.js";
export { chunkMarkdown, markdownSections } from "./markdown.js";
export { findBoundaries } from "./boundaries.js";
