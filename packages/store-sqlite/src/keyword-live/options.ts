// The options of a SQLite store's keyword index (engine and store options, tests).

export interface KeywordIndexOptions {
  /** Chunks below which FTS5 answers alone (default KEYWORD_INDEX_THRESHOLD). */
  threshold?: number;
  /** Changes applied since the file was read or written after which it is written again (default 1,000). */
  saveAfterChanges?: number;
  /** Rows changed since the file was compacted after which a save compacts it again (default: the larger of 2 × saveAfterChanges and 1/32 of the rows). */
  compactAfterChanges?: number;
  /** Postings merged per step of a compaction, yielding after each (tests); default 20,000 a step, 8 ms of steps between yields. */
  compactStep?: number;
  /** Finds wait for the index to be loaded, built or caught up instead of asking FTS5 meanwhile (tests of the index path). */
  waitForIndex?: boolean;
  /** Where warnings go (a damaged file set aside); standard error when absent. */
  warn?: (message: string) => void;
  /**
   * Word positions of at least this many bytes stay in the file, read when a phrase needs them,
   * instead of being held in memory (default POSITIONS_IN_FILE_FROM, 64 MiB: about 400,000 chunks).
   */
  positionsInFileFrom?: number;
}
