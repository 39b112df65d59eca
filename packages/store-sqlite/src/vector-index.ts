import { closeSync, existsSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { StoreError, type VectorIndexProgress, type VectorIndexSettings, type VectorIndexStatus } from "@docdb/store";
import type Database from "better-sqlite3";
import type * as USearchModule from "usearch";

/**
 * The approximate vector index of a SQLite database: an HNSW graph (usearch) in a file beside
 * the database, `<name>.db.hnsw`, described by `<name>.db.hnsw.json`.
 *
 * SQLite stays the truth. Every change to which chunk has which vector appends the chunk's
 * `seq` to `vector_log` (triggers on `chunks`, in the writing transaction: migration 0004), so
 * the log's ids follow commit order. The index records the last log id it has applied (its
 * high-water mark); before every query it applies the entries after it — looking at each
 * touched chunk's current vector in `chunks_vec`, so replaying is idempotent — which catches up
 * with other processes' writes and with writes a crash kept out of the file. Every hit is then
 * checked against `chunks_vec` and its distance computed again from the stored vector, so a
 * chunk deleted by anyone is never returned, whatever the index still holds.
 *
 * The file is rebuilt when it is missing, unreadable, inconsistent with its description, built
 * for another model (the fingerprint includes the time of the last re-embed), dimension or
 * graph parameters, or older than the oldest log entry kept (`vector_log_floor`).
 */

type USearch = typeof USearchModule;

export const USEARCH_VERSION = "2.26.2";
const LIBRARY = `usearch ${USEARCH_VERSION}`;
const FORMAT = 1;
/** Vectors added per native call while building; the event loop runs between batches. */
const BUILD_BATCH = 8192;
/** A file is written again when this many changes were applied since it was read or written. */
const SAVE_AFTER_CHANGES = 1000;
/** More log entries than this (and than the index holds) behind: the index is built again. */
const REBUILD_BACKLOG = 50_000;

/** Above this many vectors, a database without its own ef_search searches wider (searchWidth). */
const AUTO_WIDTH_FROM = 250_000;
const MAX_EXPANSION = 4096;

/** The search width docdb picks for `size` vectors (0 up to AUTO_WIDTH_FROM: ef_search as set). */
export function autoSearchWidth(size: number): number {
  if (size <= AUTO_WIDTH_FROM) return 0;
  return Math.min(MAX_EXPANSION, Math.ceil((size * DEFAULT_VECTOR_INDEX_SETTINGS.expansionSearch) / AUTO_WIDTH_FROM));
}

export const DEFAULT_VECTOR_INDEX_SETTINGS: VectorIndexSettings = {
  threshold: 20_000,
  connectivity: 16,
  expansionAdd: 128,
  expansionSearch: 128,
  quantization: "f16",
};

const SETTING_KEYS: Record<keyof VectorIndexSettings, string> = {
  threshold: "setting:vector_index.threshold",
  connectivity: "setting:vector_index.connectivity",
  expansionAdd: "setting:vector_index.expansion_add",
  expansionSearch: "setting:vector_index.expansion_search",
  quantization: "setting:vector_index.quantization",
};

/** Checks settings; throws a message for people on a bad one. */
export function checkSettings(settings: Partial<VectorIndexSettings>): void {
  for (const [key, value] of Object.entries(settings)) {
    if (value === undefined) continue;
    if (key === "quantization") {
      if (value !== "f16" && value !== "f32")
        throw new StoreError("INVALID_REQUEST", `vector index quantization must be f16 or f32, not "${value}"`);
    } else if (key in SETTING_KEYS) {
      const max = key === "threshold" ? Number.MAX_SAFE_INTEGER : key === "connectivity" ? 128 : MAX_EXPANSION;
      const min = key === "threshold" ? 0 : key === "connectivity" ? 2 : 1;
      if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
        throw new StoreError("INVALID_REQUEST", `vector index ${key} must be a whole number from ${min} to ${max}, not ${value}`);
      }
    } else throw new StoreError("INVALID_REQUEST", `unknown vector index setting "${key}"`);
  }
}

let usearchModule: Promise<USearch> | undefined;

/** usearch is imported on first use only: databases below the threshold and CLI start-up never load it. */
export function loadUsearch(): Promise<USearch> {
  usearchModule ??= import("usearch");
  return usearchModule;
}

interface FileHeader {
  format: number;
  library: string;
  fingerprint: string;
  dimensions: number;
  quantization: string;
  connectivity: number;
  expansionAdd: number;
  /** Last vector_log id applied. */
  highWater: number;
  count: number;
  bytes: number;
  /** Hash of samples of the file (start, end, and every MiB): catches truncation and most damage. */
  sample: string;
  savedAt: string;
}

/** What the index needs from its database. */
export interface VectorIndexHost {
  db: Database.Database;
  /** The database file (the index lives at `${path}.hnsw`). */
  path: string;
  /** Runs `work` in a write transaction (waits for other writers). */
  write<T>(work: () => T): Promise<T>;
  /** Runs `work` in a write transaction if the lock is free within a moment; false when it was not. */
  tryWrite(work: () => void): boolean;
  /** Changes whenever the database does, from this connection or another one. */
  changeToken(): string;
  /** "provider|model|dimensions|embedded_at", or undefined before the first vector. */
  fingerprint(): string | undefined;
  dimensions(): number | undefined;
  /** Engine defaults under the per-database settings. */
  defaults: VectorIndexSettings;
}

export interface SeqHit {
  seq: number;
  distance: number;
}

function sampleHash(path: string, size: number): string {
  const fd = openSync(path, "r");
  try {
    // FNV-1a over 4 KiB at the start, every MiB, and the end.
    let h = 0x811c9dc5;
    const buffer = Buffer.alloc(4096);
    const offsets: number[] = [];
    for (let o = 0; o < size; o += 1 << 20) offsets.push(o);
    offsets.push(Math.max(0, size - 4096));
    for (const offset of offsets) {
      const n = readSync(fd, buffer, 0, 4096, offset);
      for (let i = 0; i < n; i++) {
        h ^= buffer[i] as number;
        h = Math.imul(h, 0x01000193) >>> 0;
      }
    }
    return `${size}:${h.toString(16)}`;
  } finally {
    closeSync(fd);
  }
}

function toFloat32(blob: Buffer): Float32Array {
  // A copy: the native code reads from the start of the buffer (it ignores byteOffset).
  const out = new Float32Array(blob.byteLength / 4);
  new Uint8Array(out.buffer).set(blob);
  return out;
}

/** Vectors of all embedded chunks held in memory, kept in step with the log, scanned exactly with SIMD. */
class ExactMatrix {
  data: Float32Array;
  seqs: number[] = [];
  slots = new Map<number, number>();
  highWater = 0;

  constructor(
    readonly dimensions: number,
    readonly fingerprint: string,
    capacity: number,
  ) {
    this.data = new Float32Array(Math.max(1024, capacity) * dimensions);
  }

  set(seq: number, vector: Float32Array): void {
    let slot = this.slots.get(seq);
    if (slot === undefined) {
      slot = this.seqs.length;
      if ((slot + 1) * this.dimensions > this.data.length) {
        const grown = new Float32Array(this.data.length * 2);
        grown.set(this.data);
        this.data = grown;
      }
      this.seqs.push(seq);
      this.slots.set(seq, slot);
    }
    this.data.set(vector, slot * this.dimensions);
  }

  remove(seq: number): void {
    const slot = this.slots.get(seq);
    if (slot === undefined) return;
    const last = this.seqs.length - 1;
    const lastSeq = this.seqs[last] as number;
    if (slot !== last) {
      this.data.copyWithin(slot * this.dimensions, last * this.dimensions, (last + 1) * this.dimensions);
      this.seqs[slot] = lastSeq;
      this.slots.set(lastSeq, slot);
    }
    this.seqs.pop();
    this.slots.delete(seq);
  }

  search(usearch: USearch, query: Float32Array, k: number): SeqHit[] {
    const n = this.seqs.length;
    if (n === 0) return [];
    const dataset = this.data.subarray(0, n * this.dimensions);
    const matches = usearch.exactSearch(
      dataset,
      query,
      this.dimensions,
      Math.min(k, n),
      usearch.MetricKind.Cos,
      // One thread: spawning threads per query costs more than it saves when the cores are busy.
      1,
    ) as USearchModule.Matches;
    const hits: SeqHit[] = [];
    for (let i = 0; i < matches.keys.length; i++) {
      const seq = this.seqs[Number(matches.keys[i])];
      if (seq !== undefined) hits.push({ seq, distance: matches.distances[i] as number });
    }
    return hits;
  }
}

interface LoadedIndex {
  index: USearchModule.Index;
  fingerprint: string;
  dimensions: number;
  settings: VectorIndexSettings;
  highWater: number;
  /** Changes applied since the file was read or written. */
  unsaved: number;
}

export class VectorIndex {
  readonly file: string;
  readonly headerFile: string;
  private loaded: LoadedIndex | undefined;
  private exact: ExactMatrix | undefined;
  private opening: Promise<LoadedIndex> | undefined;
  private countCache: { token: string; vectors: number } | undefined;
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly host: VectorIndexHost) {
    this.file = `${host.path}.hnsw`;
    this.headerFile = `${host.path}.hnsw.json`;
  }

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.host.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** The vector table was dropped and created again (a re-embed): its statements are stale. */
  resetStatements(): void {
    this.statements.clear();
  }

  /**
   * How many candidates a query explores when the database leaves ef_search to docdb: the
   * graph's recall at a fixed ef falls as it grows (bench clusters at ef 128: 0.993 of the exact
   * top 10 at 100k, 0.795 at 1M; ef 512 gives 0.953 at 1M), so above 250,000 vectors the width
   * grows with the size (ef 512 at 1M), up to the largest ef_search allowed. A database (or an
   * engine option) that sets ef_search gets exactly that. 0: the index's own ef_search.
   */
  searchWidth(size: number): number {
    if (this.host.defaults.expansionSearch !== DEFAULT_VECTOR_INDEX_SETTINGS.expansionSearch) return 0;
    const stored = this.statement("SELECT 1 FROM meta WHERE key = ?").get(SETTING_KEYS.expansionSearch);
    return stored === undefined ? autoSearchWidth(size) : 0;
  }

  settings(): VectorIndexSettings {
    const settings = { ...this.host.defaults };
    for (const [key, metaKey] of Object.entries(SETTING_KEYS) as [keyof VectorIndexSettings, string][]) {
      const value = (this.statement("SELECT value FROM meta WHERE key = ?").get(metaKey) as { value: string } | undefined)?.value;
      if (value === undefined) continue;
      if (key === "quantization") {
        if (value === "f16" || value === "f32") settings.quantization = value;
      } else {
        const n = Number(value);
        if (Number.isInteger(n) && n >= 0) settings[key] = n;
      }
    }
    return settings;
  }

  /** Keeps settings for this database (inside the caller's write transaction). */
  storeSettings(settings: Partial<VectorIndexSettings>): void {
    checkSettings(settings);
    for (const [key, value] of Object.entries(settings) as [keyof VectorIndexSettings, unknown][]) {
      if (value === undefined) continue;
      this.statement("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(
        SETTING_KEYS[key],
        String(value),
      );
    }
  }

  /** Embedded chunks, counted again only when something changed. */
  vectorCount(): number {
    const token = this.host.changeToken();
    if (this.countCache?.token !== token) {
      const chunks = (this.statement("SELECT count(*) AS n FROM chunks").get() as { n: number }).n;
      const pending = (this.statement("SELECT count(*) AS n FROM chunks WHERE embedded = 0").get() as { n: number }).n;
      this.countCache = { token, vectors: chunks - pending };
    }
    return this.countCache.vectors;
  }

  /** Whether unfiltered approximate queries go to the index (enough vectors). */
  active(): boolean {
    return this.vectorCount() >= Math.max(1, this.settings().threshold);
  }

  /** The last log id written (entries up to the floor may have been pruned). */
  private logHigh(): number {
    const high = (this.statement("SELECT coalesce(max(id), 0) AS n FROM vector_log").get() as { n: number }).n;
    return Math.max(high, this.logFloor());
  }

  private logFloor(): number {
    const row = this.statement("SELECT value FROM meta WHERE key = 'vector_log_floor'").get() as { value: string } | undefined;
    return row ? Number(row.value) : 0;
  }

  private readHeader(): FileHeader | undefined {
    try {
      const header = JSON.parse(readFileSync(this.headerFile, "utf8")) as FileHeader;
      return header.format === FORMAT ? header : undefined;
    } catch {
      return undefined;
    }
  }

  /** Removes the stored index (after a re-embed, or when the database is dropped). */
  removeFiles(): void {
    this.loaded = undefined;
    this.exact = undefined;
    rmSync(this.headerFile, { force: true });
    rmSync(this.file, { force: true });
  }

  private matches(header: FileHeader, fingerprint: string, dimensions: number, settings: VectorIndexSettings): boolean {
    return (
      header.library === LIBRARY &&
      header.fingerprint === fingerprint &&
      header.dimensions === dimensions &&
      header.quantization === settings.quantization &&
      header.connectivity === settings.connectivity &&
      header.expansionAdd === settings.expansionAdd
    );
  }

  private newIndex(usearch: USearch, dimensions: number, settings: VectorIndexSettings): USearchModule.Index {
    return new usearch.Index({
      dimensions,
      metric: usearch.MetricKind.Cos,
      quantization: settings.quantization === "f16" ? usearch.ScalarKind.F16 : usearch.ScalarKind.F32,
      connectivity: settings.connectivity,
      expansion_add: settings.expansionAdd,
      expansion_search: settings.expansionSearch,
      multi: false,
    });
  }

  /** The stored index when it is usable for this model, dimension and settings; undefined otherwise. */
  private async loadFile(fingerprint: string, dimensions: number, settings: VectorIndexSettings): Promise<LoadedIndex | undefined> {
    const header = this.readHeader();
    if (!header || !existsSync(this.file)) return undefined;
    if (!this.matches(header, fingerprint, dimensions, settings)) return undefined;
    // Entries the file has not seen were pruned from the log, or the database is older than the file.
    if (header.highWater < this.logFloor() || header.highWater > this.logHigh()) return undefined;
    try {
      const size = statSync(this.file).size;
      if (size !== header.bytes || sampleHash(this.file, size) !== header.sample) return undefined;
      const usearch = await loadUsearch();
      const index = this.newIndex(usearch, dimensions, settings);
      index.load(this.file);
      if (index.size() !== header.count || index.dimensions() !== dimensions) return undefined;
      return { index, fingerprint, dimensions, settings, highWater: header.highWater, unsaved: 0 };
    } catch {
      return undefined;
    }
  }

  /** Every stored vector with the log position they reflect, read in one snapshot. */
  private readAll(onProgress?: (p: VectorIndexProgress) => void): { keys: BigUint64Array; matrix: Float32Array; highWater: number } {
    const read = this.host.db.transaction(() => {
      const highWater = this.logHigh();
      const total = (this.statement("SELECT count(*) AS n FROM chunks WHERE embedded = 1").get() as { n: number }).n;
      const dims = this.host.dimensions() ?? 0;
      let keys = new BigUint64Array(total);
      let matrix = new Float32Array(total * dims);
      let n = 0;
      for (const row of this.statement("SELECT rowid AS seq, embedding FROM chunks_vec").iterate() as Iterable<{
        seq: number;
        embedding: Buffer;
      }>) {
        if (n === keys.length) {
          const k2 = new BigUint64Array(keys.length * 2 + 1024);
          k2.set(keys);
          keys = k2;
          const m2 = new Float32Array(k2.length * dims);
          m2.set(matrix);
          matrix = m2;
        }
        keys[n] = BigInt(row.seq);
        new Uint8Array(matrix.buffer, n * dims * 4, dims * 4).set(row.embedding);
        n++;
        if (onProgress && n % 10_000 === 0) onProgress({ phase: "read", done: n, total });
      }
      onProgress?.({ phase: "read", done: n, total: n });
      return { keys: keys.subarray(0, n), matrix: matrix.subarray(0, n * dims), highWater };
    });
    return read.deferred();
  }

  private async build(
    fingerprint: string,
    dimensions: number,
    settings: VectorIndexSettings,
    onProgress?: (p: VectorIndexProgress) => void,
  ): Promise<LoadedIndex> {
    const usearch = await loadUsearch();
    const { keys, matrix, highWater } = this.readAll(onProgress);
    const index = this.newIndex(usearch, dimensions, settings);
    const threads = availableParallelism();
    const total = keys.length;
    for (let start = 0; start < total; start += BUILD_BATCH) {
      const end = Math.min(total, start + BUILD_BATCH);
      // A fresh copy per batch: the native side ignores a view's byteOffset.
      index.add(keys.slice(start, end), matrix.slice(start * dimensions, end * dimensions), threads);
      onProgress?.({ phase: "build", done: end, total });
      await yieldToEventLoop();
    }
    onProgress?.({ phase: "build", done: total, total });
    const loaded: LoadedIndex = { index, fingerprint, dimensions, settings, highWater, unsaved: total };
    return loaded;
  }

  /**
   * Writes the index file and its description, then prunes the log entries it holds. Files
   * are written beside the final ones and renamed under the write lock, index first: a crash
   * between the two renames leaves a description that no longer matches the file (rebuilt).
   */
  private async save(loaded: LoadedIndex, options: { wait: boolean; onProgress?: (p: VectorIndexProgress) => void }): Promise<void> {
    const { onProgress } = options;
    onProgress?.({ phase: "save", done: 0, total: 1 });
    const suffix = `.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    const tmpFile = `${this.file}${suffix}`;
    const tmpHeader = `${this.headerFile}${suffix}`;
    try {
      loaded.index.save(tmpFile);
      const bytes = statSync(tmpFile).size;
      const header: FileHeader = {
        format: FORMAT,
        library: LIBRARY,
        fingerprint: loaded.fingerprint,
        dimensions: loaded.dimensions,
        quantization: loaded.settings.quantization,
        connectivity: loaded.settings.connectivity,
        expansionAdd: loaded.settings.expansionAdd,
        highWater: loaded.highWater,
        count: loaded.index.size(),
        bytes,
        sample: sampleHash(tmpFile, bytes),
        savedAt: new Date().toISOString(),
      };
      writeFileSync(tmpHeader, `${JSON.stringify(header, null, 2)}\n`);
      const install = () => {
        // Another process may have written a newer file meanwhile, or re-embedded: keep theirs.
        const current = this.readHeader();
        if (this.host.fingerprint() !== loaded.fingerprint) return;
        if (current && current.fingerprint === loaded.fingerprint && current.highWater > loaded.highWater && existsSync(this.file)) return;
        if (loaded.highWater < this.logFloor()) return;
        renameSync(tmpFile, this.file);
        renameSync(tmpHeader, this.headerFile);
        // Entries up to the file's mark are in the file; a process behind it reloads the file.
        this.statement("DELETE FROM vector_log WHERE id <= ?").run(loaded.highWater);
        this.statement(
          "INSERT INTO meta (key, value) VALUES ('vector_log_floor', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        ).run(String(loaded.highWater));
        loaded.unsaved = 0;
      };
      // A query never waits behind another process's long write to keep its index: the file is
      // written on a later query or on close instead.
      if (options.wait) await this.host.write(install);
      else this.host.tryWrite(install);
    } finally {
      rmSync(tmpFile, { force: true });
      rmSync(tmpHeader, { force: true });
    }
    onProgress?.({ phase: "save", done: 1, total: 1 });
  }

  /** The in-memory index for the current model and settings: loaded from the file, or built. */
  private async ensure(): Promise<LoadedIndex | undefined> {
    const fingerprint = this.host.fingerprint();
    const dimensions = this.host.dimensions();
    if (fingerprint === undefined || dimensions === undefined) return undefined;
    const settings = this.settings();
    const current = this.loaded;
    if (
      current &&
      current.fingerprint === fingerprint &&
      current.settings.quantization === settings.quantization &&
      current.settings.connectivity === settings.connectivity &&
      current.settings.expansionAdd === settings.expansionAdd &&
      current.settings.expansionSearch === settings.expansionSearch &&
      current.highWater >= this.logFloor()
    ) {
      return current;
    }
    this.opening ??= (async () => {
      try {
        const loaded = await this.loadFile(fingerprint, dimensions, settings);
        if (!loaded) return await this.rebuildNow(fingerprint, dimensions, { wait: false });
        this.loaded = loaded;
        return loaded;
      } finally {
        this.opening = undefined;
      }
    })();
    return this.opening;
  }

  private async rebuildNow(
    fingerprint: string,
    dimensions: number,
    options: { wait: boolean; onProgress?: (p: VectorIndexProgress) => void },
  ): Promise<LoadedIndex> {
    try {
      const loaded = await this.build(fingerprint, dimensions, this.settings(), options.onProgress);
      this.loaded = loaded;
      await this.save(loaded, options);
      this.loaded = loaded;
      return loaded;
    } finally {
      this.opening = undefined;
    }
  }

  /** Applies the log entries after the index's mark: the current vector of every chunk they name. */
  private catchUp(target: { highWater: number }, apply: (seq: number, vector: Float32Array | undefined) => void): number {
    const high = this.logHigh();
    if (high <= target.highWater) return 0;
    const seqs = this.statement("SELECT DISTINCT seq FROM vector_log WHERE id > ? AND id <= ?")
      .pluck()
      .all(target.highWater, high) as number[];
    const vectorOf = this.statement("SELECT embedding FROM chunks_vec WHERE rowid = ?").pluck();
    for (const seq of seqs) {
      const blob = vectorOf.get(BigInt(seq)) as Buffer | undefined;
      apply(seq, blob ? toFloat32(blob) : undefined);
    }
    target.highWater = high;
    return seqs.length;
  }

  /** Log entries after the index's mark (an upper bound on the chunks to apply). */
  private backlog(target: { highWater: number }): number {
    return Math.max(0, this.logHigh() - target.highWater);
  }

  private catchUpIndex(loaded: LoadedIndex): void {
    const index = loaded.index;
    const adds: { key: bigint; vector: Float32Array }[] = [];
    const applied = this.catchUp(loaded, (seq, vector) => {
      const key = BigInt(seq);
      if (index.contains(key)) index.remove(key);
      if (vector) adds.push({ key, vector });
    });
    if (adds.length > 0) {
      const dims = loaded.dimensions;
      const matrix = new Float32Array(adds.length * dims);
      for (const [i, a] of adds.entries()) matrix.set(a.vector, i * dims);
      index.add(
        BigUint64Array.from(adds, (a) => a.key),
        matrix,
        adds.length > 64 ? availableParallelism() : 1,
      );
    }
    loaded.unsaved += applied;
  }

  /**
   * The `k` approximate nearest neighbours from the graph (built or caught up first), best
   * first, with the index's distances (computed on its f16 or f32 copy of the vectors);
   * unchecked: pass them through `verify`. Undefined when there is no model.
   */
  async candidates(query: Float32Array, k: number): Promise<SeqHit[] | undefined> {
    let loaded = await this.ensure();
    if (!loaded) return undefined;
    // Far behind (a big import elsewhere): building again is faster than replaying one by one.
    if (this.backlog(loaded) > Math.max(REBUILD_BACKLOG, loaded.index.size())) {
      if (this.loaded === loaded) this.loaded = undefined;
      this.opening ??= this.rebuildNow(loaded.fingerprint, loaded.dimensions, { wait: false });
      loaded = await this.opening;
    }
    this.catchUpIndex(loaded);
    const size = loaded.index.size();
    if (size === 0) return [];
    // usearch explores max(ef_search, wanted) candidates: asking for more widens the search.
    const wanted = Math.min(Math.max(k, this.searchWidth(size)), size);
    const matches = loaded.index.search(query.slice(), wanted, 1);
    const hits: SeqHit[] = [];
    for (let i = 0; i < Math.min(k, matches.keys.length); i++) {
      hits.push({ seq: Number(matches.keys[i]), distance: Math.max(0, matches.distances[i] as number) });
    }
    return hits;
  }

  /** Approximate nearest chunks, checked against SQLite. */
  async search(query: Float32Array, k: number): Promise<SeqHit[] | undefined> {
    const hits = await this.candidates(query, k);
    return hits && this.verify(hits);
  }

  /**
   * The hits whose chunk still has a vector in SQLite, in order: whatever the index still
   * holds, a chunk deleted by anyone is never returned.
   */
  verify(hits: SeqHit[]): SeqHit[] {
    if (hits.length === 0) return hits;
    const alive = new Set(
      this.statement("SELECT seq FROM chunks WHERE seq IN (SELECT value FROM json_each(?)) AND embedded = 1")
        .pluck()
        .all(JSON.stringify(hits.map((h) => h.seq))) as number[],
    );
    return hits.filter((h) => alive.has(h.seq));
  }

  /** Exact nearest chunks over the vectors held in memory (SIMD); loads them on first use. */
  async exactSearch(query: Float32Array, k: number): Promise<SeqHit[] | undefined> {
    const fingerprint = this.host.fingerprint();
    const dimensions = this.host.dimensions();
    if (fingerprint === undefined || dimensions === undefined) return undefined;
    const usearch = await loadUsearch();
    if (!this.exact || this.exact.fingerprint !== fingerprint || this.exact.highWater < this.logFloor()) {
      const { keys, matrix, highWater } = this.readAll();
      const exact = new ExactMatrix(dimensions, fingerprint, keys.length);
      for (let i = 0; i < keys.length; i++) exact.set(Number(keys[i]), matrix.subarray(i * dimensions, (i + 1) * dimensions));
      exact.highWater = highWater;
      this.exact = exact;
    }
    const exact = this.exact;
    this.catchUp(exact, (seq, vector) => (vector ? exact.set(seq, vector) : exact.remove(seq)));
    return exact.search(usearch, query.slice(), k);
  }

  /** Writes the file when many changes were applied since it was read (on close). */
  async flush(): Promise<void> {
    const loaded = this.loaded;
    if (loaded && loaded.unsaved >= SAVE_AFTER_CHANGES) {
      try {
        this.catchUpIndex(loaded);
        await this.save(loaded, { wait: false });
      } catch {
        // The database is the truth: an index not written is caught up or rebuilt next time.
      }
    }
  }

  async status(): Promise<VectorIndexStatus> {
    const settings = this.settings();
    const vectors = this.vectorCount();
    const header = this.readHeader();
    const fingerprint = this.host.fingerprint();
    const dimensions = this.host.dimensions();
    const usable =
      header !== undefined &&
      fingerprint !== undefined &&
      dimensions !== undefined &&
      existsSync(this.file) &&
      this.matches(header, fingerprint, dimensions, settings) &&
      header.highWater >= this.logFloor() &&
      statSync(this.file).size === header.bytes;
    const behind = usable
      ? (this.statement("SELECT count(DISTINCT seq) AS n FROM vector_log WHERE id > ?").get(header.highWater) as { n: number }).n
      : 0;
    const state: VectorIndexStatus["state"] =
      vectors < Math.max(1, settings.threshold) && !usable ? "exact" : !usable ? "missing" : behind > 0 ? "behind" : "ready";
    const width = state === "exact" ? 0 : this.searchWidth(vectors);
    return {
      state,
      library: LIBRARY,
      location: this.file,
      vectors,
      indexed: usable ? header.count : 0,
      behind,
      bytes: usable ? header.bytes : 0,
      savedAt: usable ? header.savedAt : null,
      settings,
      ...(width > settings.expansionSearch ? { searchWidth: width } : {}),
    };
  }

  async rebuild(options: {
    settings?: Partial<VectorIndexSettings>;
    onProgress?: (p: VectorIndexProgress) => void;
  }): Promise<VectorIndexStatus> {
    if (options.settings && Object.values(options.settings).some((v) => v !== undefined)) {
      checkSettings(options.settings);
      const settings = options.settings;
      await this.host.write(() => this.storeSettings(settings));
    }
    const fingerprint = this.host.fingerprint();
    const dimensions = this.host.dimensions();
    this.loaded = undefined;
    if (fingerprint === undefined || dimensions === undefined) {
      this.removeFiles();
      return this.status();
    }
    await this.rebuildNow(fingerprint, dimensions, { wait: true, onProgress: options.onProgress });
    return this.status();
  }
}
