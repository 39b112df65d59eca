export interface Chunk {
  /** Position of the chunk in its document: 0, 1, 2… */
  index: number;
  /** The chunk's text; always equal to `source.slice(start, end)`. */
  text: string;
  /** Character offset (UTF-16 code units) of the first character in the source text. */
  start: number;
  /** Character offset one past the last character in the source text. */
  end: number;
  /** Markdown: the headings above this chunk; code: the declarations it sits in. Outermost first. */
  headingPath?: string[];
}

export interface ChunkOptions {
  /** Maximum characters per chunk. Default 700. */
  size?: number;
  /** Characters repeated between consecutive chunks. Default 100. */
  overlap?: number;
}

export const DEFAULT_CHUNK_SIZE = 700;
export const DEFAULT_CHUNK_OVERLAP = 100;
