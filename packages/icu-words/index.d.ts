// Types of @docdb/icu-words (index.cjs).

/**
 * ICU's word-like segments of `text` (as `Intl.Segmenter('ja', { granularity: 'word' })` reports
 * them): writes each one's start and end offset into `out` and returns how many numbers it wrote.
 * `out` must hold `2 * text.length` numbers. Undefined when the addon is not available.
 */
export declare const words: ((text: string, out: Int32Array) => number) | undefined;
/** The ICU major version the addon was built for (the running Node's), when it loaded. */
export declare const icuMajor: string | undefined;
/** Why the addon is not available, when it is not. */
export declare const error: unknown;
