export { findBoundaries } from "./boundaries.js";
export { chunkMarkdown, markdownSections } from "./markdown.js";
export { chunkRange, chunkText } from "./text.js";
export type { Chunk, ChunkOptions } from "./types.js";
export { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE } from "./types.js";
