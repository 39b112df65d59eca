// The approximate vector index of a SQLite database: an HNSW graph (usearch) in a file beside the
// database, memory-mapped or built on first use, caught up from the vector log before every query.
import { availableParallelism } from "node:os";
import { dirname } from "node:path";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { VectorIndexProgress, VectorIndexSettings, VectorIndexStatus } from "@docdb/store";
import { buildIndex } from "./build.js";
import { catchUpLoaded, mergeViewed, searchIndex, viewedChanges } from "./delta.js";
import { currentExact, type ExactMatrix, rescoreWidth } from "./exact.js";
import { IndexFile, type LoadedIndex, newIndex } from "./file.js";
import { IndexLog, type SeqHit, type VectorIndexHost } from "./log.js";
import { checkSettings, loadUsearch, readSettings, searchWidth, storeSettings, type USearch } from "./settings.js";
import { type FileIdentity, identity, latestDamage, sameIdentity, statOrUndefined } from "./verify.js";

export type { SeqHit, VectorIndexHost } from "./log.js";

/*
 * SQLite stays the truth. Every change to which chunk has which vector appends the chunk's
 * `seq` to `vector_log` (triggers on `chunks`, in the writing transaction: migration 0005), so
 * the log's ids follow commit order. The index records the last log id it has applied (its
 * high-water mark); before every query it applies the entries after it — looking at each
 * touched chunk's current vector in `chunks_vec`, so replaying is idempotent — which catches up
 * with other processes' writes and with writes a crash kept out of the file. Every hit is then
 * checked against `chunks_vec` and its distance computed again from the stored vector, so a
 * chunk deleted by anyone is never returned, whatever the index still holds.
 *
 * The file is rebuilt when it is missing, built for another model (the fingerprint includes the
 * time of the last re-embed), dimension or graph parameters, or older than the oldest log entry
 * kept (`vector_log_floor`). A file that is damaged — its SHA-256 is not the one in its
 * description, it is not readable, or a directory stands in its place — is never handed to
 * usearch: it is set aside (`.corrupt-<time>`, see verify.ts), a warning is written, and the
 * index is built again in the background while queries scan exactly (the same answers as
 * `exact: true`); closing the store waits for that build and writes the file.
 */

/** A file is written again when this many changes were applied since it was read or written. */
const SAVE_AFTER_CHANGES = 1000;
/** More log entries than this (and than the index holds) behind: the index is built again. */
const REBUILD_BACKLOG = 50_000;
/** From this many vectors a missing index is built in the background, queries scanning exactly meanwhile. */
const BACKGROUND_BUILD_FROM = 200_000;
/** A mapped file with this many changes beside it is merged and written again (graph insertion). */
const MERGE_AFTER_CHANGES = 10_000;

export class VectorIndex {
  private readonly log: IndexLog;
  private readonly files: IndexFile;
  private loaded: LoadedIndex | undefined;
  /** The in-memory copy of the vectors (exactSearch loads it; undefined frees it). */
  exact: ExactMatrix | undefined;
  /** usearch, once imported (synchronous searches need it at hand). */
  private usearch: USearch | undefined;
  private opening: Promise<LoadedIndex | "exact"> | undefined;
  /** A build after damage was found: queries scan exactly until it is done. */
  private background: Promise<void> | undefined;
  /** A damaged file that could not be moved aside: queries scan exactly while it is there. */
  private stuck: FileIdentity | undefined;
  private readonly warned = new Set<string>();

  constructor(private readonly host: VectorIndexHost) {
    this.log = new IndexLog(host);
    this.files = new IndexFile(host, this.log);
  }

  get file(): string {
    return this.files.file;
  }

  get headerFile(): string {
    return this.files.headerFile;
  }

  /** The vector table was dropped and created again (a re-embed): its statements are stale. */
  resetStatements(): void {
    this.log.resetStatements();
  }

  /** How many candidates a query explores when the database leaves ef_search to docdb (see settings.ts). */
  searchWidth(size: number): number {
    return searchWidth(this.log, this.host.defaults, size);
  }

  settings(): VectorIndexSettings {
    return readSettings(this.log, this.host.defaults);
  }

  /** Keeps settings for this database (inside the caller's write transaction). */
  storeSettings(settings: Partial<VectorIndexSettings>): void {
    storeSettings(this.log, settings);
  }

  /** Embedded chunks, counted again only when something changed. */
  vectorCount(): number {
    return this.log.vectorCount();
  }

  /** Whether unfiltered approximate queries go to the index (enough vectors). */
  active(): boolean {
    return this.vectorCount() >= Math.max(1, this.settings().threshold);
  }

  /** Removes the stored index (after a re-embed, or when the database is dropped). */
  removeFiles(): void {
    this.loaded = undefined;
    this.exact = undefined;
    this.files.remove();
  }

  private warn(message: string): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    (this.host.warn ?? ((m) => process.stderr.write(`docdb: warning: ${m}\n`)))(message);
  }

  /** Builds the index again without making queries wait (they scan exactly meanwhile). */
  private buildInBackground(fingerprint: string, dimensions: number): void {
    this.background ??= (async () => {
      try {
        await this.rebuildNow(fingerprint, dimensions, { wait: true });
        // The copy the exact scans used meanwhile is dropped (`exact: true` loads it again).
        this.exact = undefined;
      } catch (error) {
        this.warn(`the vector index ${this.file} could not be built again: ${(error as Error).message}`);
      } finally {
        this.background = undefined;
      }
    })();
  }

  /** Opens the stored index; damage is set aside and built again in the background ("exact" meanwhile). */
  private async open(fingerprint: string, dimensions: number): Promise<LoadedIndex | "exact"> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const found = await this.files.load(fingerprint, dimensions, this.settings());
      if (found && "loaded" in found) {
        this.loaded = found.loaded;
        return found.loaded;
      }
      if (!found) break;
      let note: Awaited<ReturnType<IndexFile["setAside"]>>;
      try {
        note = await this.files.setAside(found);
      } catch (error) {
        this.stuck = found.seen;
        this.warn(
          `the vector index ${this.file} ${found.damage}, and it could not be moved aside (${(error as Error).message}): queries scan exactly until it is moved or removed; check that ${dirname(this.file)} is writable, then open the database again`,
        );
        return "exact";
      }
      // Another process wrote a new file meanwhile: look again.
      if (!note) continue;
      this.warn(
        `the vector index ${this.file} ${note.reason}: set aside as ${note.setAside}; queries scan exactly while it is built again`,
      );
      this.buildInBackground(fingerprint, dimensions);
      return "exact";
    }
    // Nothing usable: built now, unless a damaged file was set aside and not yet replaced.
    const damage = latestDamage(this.file);
    const header = this.files.readHeader();
    if (damage && !(header && header.savedAt >= damage.foundAt)) {
      this.buildInBackground(fingerprint, dimensions);
      return "exact";
    }
    // A large first build (minutes) does not hold queries: they scan exactly until it is done.
    if (this.vectorCount() >= BACKGROUND_BUILD_FROM) {
      this.buildInBackground(fingerprint, dimensions);
      return "exact";
    }
    return this.rebuildNow(fingerprint, dimensions, { wait: false });
  }

  /** The file is still the damaged one that could not be moved aside. */
  private stillStuck(): boolean {
    if (!this.stuck) return false;
    try {
      const stats = statOrUndefined(this.file);
      if (stats && sameIdentity(identity(stats), this.stuck)) return true;
    } catch {
      return true;
    }
    this.stuck = undefined;
    return false;
  }

  /** The index held, when it is for the current model and settings and can catch up. */
  private current(fingerprint: string | undefined): LoadedIndex | undefined {
    const settings = this.settings();
    const current = this.loaded;
    return current &&
      current.fingerprint === fingerprint &&
      current.settings.quantization === settings.quantization &&
      current.settings.connectivity === settings.connectivity &&
      current.settings.expansionAdd === settings.expansionAdd &&
      current.settings.expansionSearch === settings.expansionSearch &&
      current.highWater >= this.log.floor()
      ? current
      : undefined;
  }

  /** The in-memory index for the current model and settings: loaded from the file, or built; "exact" while none can be trusted. */
  private async ensure(): Promise<LoadedIndex | "exact" | undefined> {
    const fingerprint = this.host.fingerprint();
    const dimensions = this.host.dimensions();
    if (fingerprint === undefined || dimensions === undefined) return undefined;
    const current = this.current(fingerprint);
    if (current) return current;
    if (this.background || this.stillStuck()) return "exact";
    this.opening ??= (async () => {
      try {
        return await this.open(fingerprint, dimensions);
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
      const loaded = await buildIndex(this.log, fingerprint, dimensions, this.settings(), options.onProgress);
      this.loaded = loaded;
      return await this.install(loaded, options);
    } finally {
      this.opening = undefined;
    }
  }

  /**
   * Writes an index held in memory, then serves the written file memory-mapped (the copy in
   * memory is dropped) in place of `replacing`; keeps the copy when the file was not written.
   */
  private async install(
    loaded: LoadedIndex,
    options: { wait: boolean; onProgress?: (p: VectorIndexProgress) => void },
    replacing: LoadedIndex = loaded,
  ): Promise<LoadedIndex> {
    const saved = await this.files.save(loaded, options);
    const viewed = saved && (await this.files.view(loaded.fingerprint, loaded.dimensions, loaded.settings, saved, saved.identity));
    const serving = viewed && viewed !== "replaced" ? viewed : loaded;
    if (this.loaded === replacing || this.loaded === undefined) this.loaded = serving;
    return serving;
  }

  /** A mapped file and the changes beside it, merged into a new file which is then mapped (load-on-write). */
  private async merge(loaded: LoadedIndex, wait: boolean): Promise<void> {
    const viewed = loaded.viewed;
    if (!viewed) return;
    const usearch = await loadUsearch();
    const highWater = loaded.highWater;
    const unsaved = loaded.unsaved;
    const sameFile = () => {
      const now = statOrUndefined(this.file);
      return now !== undefined && sameIdentity(identity(now), viewed.identity);
    };
    const fresh = () => newIndex(usearch, loaded.dimensions, loaded.settings);
    const index = await mergeViewed(fresh, this.file, viewed, sameFile, availableParallelism(), yieldToEventLoop);
    // The file was replaced by another process: the next query maps the new one.
    if (!index) {
      if (this.loaded === loaded) this.loaded = undefined;
      return;
    }
    await this.install({ ...loaded, index, highWater, unsaved, viewed: undefined }, { wait }, loaded);
  }

  /**
   * The `k` approximate nearest neighbours from the graph (built or caught up first), best
   * first, with the index's distances (computed on its f16 or f32 copy of the vectors);
   * unchecked: pass them through `verify`. Undefined when there is no model.
   */
  async candidates(query: Float32Array, k: number): Promise<SeqHit[] | undefined> {
    const now = this.candidatesNow(query, k);
    if (now) return now;
    let loaded = await this.ensure();
    if (!loaded) return undefined;
    // No index to trust yet (damage found): the exact answer, from the in-memory scan.
    if (loaded === "exact") return this.exactSearch(query, k);
    // Far behind (a big import elsewhere): building again is faster than replaying one by one.
    if (this.log.backlog(loaded) > Math.max(REBUILD_BACKLOG, loaded.index.size())) {
      if (this.loaded === loaded) this.loaded = undefined;
      this.opening ??= this.rebuildNow(loaded.fingerprint, loaded.dimensions, { wait: false });
      const rebuilt = await this.opening;
      if (rebuilt === "exact") return this.exactSearch(query, k);
      loaded = rebuilt;
    }
    catchUpLoaded(this.log, loaded);
    if (loaded.viewed && viewedChanges(loaded.viewed) > MERGE_AFTER_CHANGES) {
      // Many changes beside the mapped file: merged into a new one (queries meanwhile use this one).
      const done = () => this.loaded ?? "exact";
      this.opening ??= this.merge(loaded, false)
        .then(done, done)
        .finally(() => (this.opening = undefined));
    }
    await this.prepare();
    if (!this.usearch) return undefined;
    // usearch explores max(ef_search, wanted) candidates: asking for more widens the search.
    return searchIndex(this.usearch, loaded, this.log, query, k, (size) => this.searchWidth(size));
  }

  /** `candidates` without a pause, when the index is ready: held, current, not far behind, no merge due. */
  candidatesNow(query: Float32Array, k: number): SeqHit[] | undefined {
    const loaded = this.usearch && this.current(this.host.fingerprint());
    if (!loaded || !this.usearch || this.log.backlog(loaded) > Math.max(REBUILD_BACKLOG, loaded.index.size())) return undefined;
    catchUpLoaded(this.log, loaded);
    if (loaded.viewed && viewedChanges(loaded.viewed) > MERGE_AFTER_CHANGES) return undefined;
    return searchIndex(this.usearch, loaded, this.log, query, k, (size) => this.searchWidth(size));
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
    return this.log.verify(hits);
  }

  /** Exact nearest chunks over the vectors held in memory (SIMD); loads them on first use. */
  async exactSearch(query: Float32Array, k: number): Promise<SeqHit[] | undefined> {
    if (this.host.fingerprint() === undefined || this.host.dimensions() === undefined) return undefined;
    await this.prepare();
    return this.exactSearchNow(query, k);
  }

  /** Imports usearch once; `ready` after that (`exactSearchNow` and `candidatesNow` need it at hand). */
  async prepare(): Promise<void> {
    this.usearch ??= await loadUsearch();
  }

  get ready(): boolean {
    return this.usearch !== undefined;
  }

  /** `exactSearch` without a pause, once usearch is imported (undefined before, or without a model). */
  exactSearchNow(query: Float32Array, k: number): SeqHit[] | undefined {
    const fingerprint = this.host.fingerprint();
    const dimensions = this.host.dimensions();
    const usearch = this.usearch;
    if (fingerprint === undefined || dimensions === undefined || !usearch) return undefined;
    const exact = currentExact(this, this.log, fingerprint, dimensions, this.vectorCount());
    if (!exact.quantized) return exact.search(usearch, query.slice(), k);
    // One byte a dimension picks the candidates; their distances come from the stored vectors.
    const candidates = exact.search(usearch, query.slice(), Math.max(k, rescoreWidth(k)));
    return this.log.rescore(query, candidates).slice(0, k);
  }

  /** Writes the file when many changes were applied since it was read (on close). */
  async flush(): Promise<void> {
    // A build after damage finishes and is written before the store closes.
    await this.background;
    const loaded = this.loaded;
    if (loaded && loaded.unsaved >= SAVE_AFTER_CHANGES) {
      try {
        catchUpLoaded(this.log, loaded);
        if (loaded.viewed) await this.merge(loaded, false);
        else await this.files.save(loaded, { wait: false });
      } catch {
        // The database is the truth: an index not written is caught up or rebuilt next time.
      }
    }
  }

  /** The state of the stored index; the file's checksum is verified (about 1 s per GB). */
  async status(): Promise<VectorIndexStatus> {
    return this.files.status(this.settings(), this.vectorCount(), (size) => this.searchWidth(size));
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
    await this.background;
    // A directory (or anything but a file) where the index goes is moved aside, or a clear error.
    this.files.clearWay();
    this.stuck = undefined;
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
