export { findBoundaries } from "./boundaries.js";
export { type CodeChunkOptions, chunkCode } from "./code.js";
export { CODE_LANGUAGES } from "./code-languages.js";
export { chunkMarkdown, markdownSections } from "./markdown.js";
export { chunkRange, chunkText } from "./text.js";
export type { Chunk, ChunkOptions } from "./types.js";
export { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE } from "./types.js";
