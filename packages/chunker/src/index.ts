export { findBoundaries } from "./boundaries.js";
export { type CodeChunkOptions, chunkCode, MAX_ERROR_SHARE } from "./code.js";
export { CODE_LANGUAGES, codeLanguage } from "./code-languages.js";
export { chunkMarkdown, chunkMarkdownWithCode, markdownSections } from "./markdown.js";
export { chunkRange, chunkText } from "./text.js";
export type { Chunk, ChunkOptions, CodeFallback, SymbolKind } from "./types.js";
export { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE } from "./types.js";
