/** Writes `files` importable files (and some that an import must skip) under `dir`. */
export function generateCorpus(dir: string, options?: { files?: number; seed?: number }): { files: number; bytes: number };
