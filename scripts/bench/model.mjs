// An EmbeddingModel that hands out vectors computed before the clock starts, so the benchmark
// times docdb (chunking, SQLite, FTS, sqlite-vec) and not an embedding provider.

export class PrecomputedEmbeddings {
  /**
   * @param {{ dims: number, at: (i: number) => Float32Array, count: number }} passages vectors for
   *   document chunks, handed out in the order chunks are embedded
   * @param {Map<string, Float32Array>} queryVectors the vector of each query text
   */
  constructor(passages, queryVectors = new Map()) {
    this.provider = "bench";
    this.modelId = `clustered-${passages.dims}`;
    this.dimensions = passages.dims;
    this.maxBatchSize = 256;
    this.supportsParallelCalls = false;
    this.passages = passages;
    this.queryVectors = queryVectors;
    this.next = 0;
  }

  async embed(texts, { kind }) {
    if (kind === "query") {
      return texts.map((t) => {
        const v = this.queryVectors.get(t);
        if (!v) throw new Error(`no precomputed vector for query ${JSON.stringify(t)}`);
        return v;
      });
    }
    if (this.next + texts.length > this.passages.count) throw new Error("ran out of precomputed passage vectors");
    return texts.map(() => this.passages.at(this.next++));
  }
}
