// The HNSW index on disk: `<name>.db.hnsw` (usearch's format) and its description
// `<name>.db.hnsw.json` with a SHA-256 of the file; reading them when they fit the model and
// settings and the file is intact (checked before usearch reads a byte), and writing them safely.
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { StoreError, type VectorIndexProgress, type VectorIndexSettings, type VectorIndexStatus } from "@docdb/store";
import type * as USearchModule from "usearch";
import { newViewed, type Viewed } from "./delta.js";
import type { IndexLog, VectorIndexHost } from "./log.js";
import { LIBRARY, loadUsearch, type USearch } from "./settings.js";
import {
  alive,
  checksum,
  type DamageNote,
  type FileIdentity,
  identity,
  latestDamage,
  notAFile,
  sameIdentity,
  setAside,
  statOrUndefined,
} from "./verify.js";

/** 2: with `checksum` (a description of format 1, from before it, is not trusted: the file is built again). */
const FORMAT = 2;

export interface FileHeader {
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
  /** `sha256:<hex>` of the whole file, checked before the file is handed to usearch. */
  checksum: string;
  savedAt: string;
}

/** An index in memory with what it was built from. */
export interface LoadedIndex {
  index: USearchModule.Index;
  fingerprint: string;
  dimensions: number;
  settings: VectorIndexSettings;
  highWater: number;
  /** Changes applied since the file was read or written. */
  unsaved: number;
  /** Set when `index` is the file memory-mapped (read-only): the changes since are held beside it. */
  viewed?: Viewed;
}

/** A file written and installed: which file, and what it holds. */
export interface SavedFile {
  identity: FileIdentity;
  highWater: number;
  count: number;
}

/** An empty usearch index for these settings. */
export function newIndex(usearch: USearch, dimensions: number, settings: VectorIndexSettings): USearchModule.Index {
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

/**
 * What opening the stored index found: the index; or damage (the file is not what its
 * description says, or not a readable file at all) with what was looked at; or nothing usable
 * that is not damage (missing, older format, another model or settings: built again).
 */
export type LoadResult =
  | { loaded: LoadedIndex }
  | { damage: string; header: FileHeader | undefined; seen: FileIdentity | undefined }
  | undefined;

const MISMATCH = "does not match the checksum in its description (damaged)";

function describeError(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return e?.code ? `${e.code}: ${e.message}` : String(e?.message ?? error);
}

/** The index file of one database and its description. */
export class IndexFile {
  readonly file: string;
  readonly headerFile: string;

  constructor(
    private readonly host: VectorIndexHost,
    private readonly log: IndexLog,
  ) {
    this.file = `${host.path}.hnsw`;
    this.headerFile = `${host.path}.hnsw.json`;
  }

  readHeader(): FileHeader | undefined {
    try {
      const header = JSON.parse(readFileSync(this.headerFile, "utf8")) as FileHeader;
      return header.format === FORMAT ? header : undefined;
    } catch {
      return undefined;
    }
  }

  /** Removes temporary files that a process killed while writing them left behind (its pid is gone). */
  removeLeftovers(): void {
    const prefix = `${basename(this.file)}.tmp-`;
    let names: string[];
    try {
      names = readdirSync(dirname(this.file)).filter((n) => n.startsWith(prefix) || n.startsWith(`${basename(this.headerFile)}.tmp-`));
    } catch {
      return;
    }
    for (const name of names) {
      const pid = Number(name.slice(name.lastIndexOf(".tmp-") + 5).split("-")[0]);
      if (!Number.isInteger(pid) || pid === process.pid || alive(pid)) continue;
      rmSync(join(dirname(this.file), name), { force: true });
    }
  }

  /** Removes both files. */
  remove(): void {
    rmSync(this.headerFile, { force: true });
    rmSync(this.file, { force: true });
  }

  /** Whether the description says the file was built for this model, dimension and graph settings. */
  matches(header: FileHeader, fingerprint: string, dimensions: number, settings: VectorIndexSettings): boolean {
    return (
      header.library === LIBRARY &&
      header.fingerprint === fingerprint &&
      header.dimensions === dimensions &&
      header.quantization === settings.quantization &&
      header.connectivity === settings.connectivity &&
      header.expansionAdd === settings.expansionAdd
    );
  }

  /**
   * The stored index when it is usable for this model, dimension and settings. The whole file
   * is hashed and compared with its description before usearch reads it: usearch trusts its
   * input, and a damaged file can crash the process inside it.
   */
  async load(fingerprint: string, dimensions: number, settings: VectorIndexSettings): Promise<LoadResult> {
    let stats: ReturnType<typeof statOrUndefined>;
    try {
      stats = statOrUndefined(this.file);
    } catch (error) {
      return { damage: `cannot be read (${describeError(error)})`, header: undefined, seen: undefined };
    }
    const kind = notAFile(stats);
    if (kind) return { damage: `is ${kind}, not an index file`, header: undefined, seen: stats && identity(stats) };
    const header = this.readHeader();
    if (!header || !stats) return undefined;
    if (!this.matches(header, fingerprint, dimensions, settings)) return undefined;
    // Entries the file has not seen were pruned from the log, or the database is older than the file.
    if (header.highWater < this.log.floor() || header.highWater > this.log.high()) return undefined;
    if (stats.size !== header.bytes) {
      return { damage: `is ${stats.size} bytes, its description says ${header.bytes}`, header, seen: identity(stats) };
    }
    let sum: Awaited<ReturnType<typeof checksum>>;
    try {
      sum = await checksum(this.file);
    } catch (error) {
      return { damage: `cannot be read (${describeError(error)})`, header, seen: undefined };
    }
    if (sum.checksum !== header.checksum) {
      return { damage: MISMATCH, header, seen: sum.identity };
    }
    const viewed = await this.view(fingerprint, dimensions, settings, header, sum.identity);
    // Replaced between the checksum and the mapping (another process wrote it): look again.
    if (viewed === "replaced") return this.load(fingerprint, dimensions, settings);
    return viewed && { loaded: viewed };
  }

  /**
   * Maps the file (usearch `view`: read-only, paged in by the system as queries touch it, not
   * copied into the process) when it is still the one checked (`seen`).
   */
  async view(
    fingerprint: string,
    dimensions: number,
    settings: VectorIndexSettings,
    header: { count: number; highWater: number },
    seen: FileIdentity,
  ): Promise<LoadedIndex | "replaced" | undefined> {
    try {
      const usearch = await loadUsearch();
      const index = newIndex(usearch, dimensions, settings);
      index.view(this.file);
      const now = statOrUndefined(this.file);
      if (!now || !sameIdentity(identity(now), seen)) return "replaced";
      if (index.size() !== header.count || index.dimensions() !== dimensions) return undefined;
      const viewed = newViewed(seen, dimensions);
      return { index, fingerprint, dimensions, settings, highWater: header.highWater, unsaved: 0, viewed };
    } catch {
      return undefined;
    }
  }

  /**
   * Whether the stored file can be used with these settings: its description, size and
   * checksum (reads the whole file). Damage found is reported, not moved: a query sets it aside.
   */
  async inspect(settings: VectorIndexSettings): Promise<{ header: FileHeader | undefined; damage: string | undefined }> {
    const header = this.readHeader();
    const fingerprint = this.host.fingerprint();
    const dimensions = this.host.dimensions();
    let stats: ReturnType<typeof statOrUndefined>;
    try {
      stats = statOrUndefined(this.file);
    } catch (error) {
      return { header: undefined, damage: `cannot be read (${describeError(error)})` };
    }
    const kind = notAFile(stats);
    if (kind) return { header: undefined, damage: `is ${kind}, not an index file` };
    if (!header || !stats || fingerprint === undefined || dimensions === undefined) return { header: undefined, damage: undefined };
    if (!this.matches(header, fingerprint, dimensions, settings) || header.highWater < this.log.floor()) {
      return { header: undefined, damage: undefined };
    }
    if (stats.size !== header.bytes) return { header: undefined, damage: `is ${stats.size} bytes, its description says ${header.bytes}` };
    try {
      if ((await checksum(this.file)).checksum !== header.checksum) return { header: undefined, damage: MISMATCH };
    } catch (error) {
      return { header: undefined, damage: `cannot be read (${describeError(error)})` };
    }
    return { header, damage: undefined };
  }

  /**
   * Sets a damaged file aside (`<file>.corrupt-<time>`, never deleted) with its description,
   * under the write lock and only when it is still the file that was found damaged with the
   * same description (another process may have written a good one meanwhile). The note, or
   * undefined when there was nothing to set aside any more. Throws when it cannot be moved.
   */
  async setAside(found: {
    damage: string;
    header: FileHeader | undefined;
    seen: FileIdentity | undefined;
  }): Promise<DamageNote | undefined> {
    return this.host.write(() => {
      const stats = statOrUndefined(this.file);
      if (!stats) return undefined;
      if (found.seen && !sameIdentity(identity(stats), found.seen)) return undefined;
      if (found.header && JSON.stringify(this.readHeader()) !== JSON.stringify(found.header)) return undefined;
      const note = setAside(this.file, found.damage, found.header ?? null);
      rmSync(this.headerFile, { force: true });
      return note;
    });
  }

  /** Clears the way for a new file: a directory (or other non-file) where a file goes is set aside; throws if it cannot be. */
  clearWay(): void {
    for (const path of [this.file, this.headerFile]) {
      const kind = notAFile(statOrUndefined(path));
      if (!kind) continue;
      try {
        setAside(path, `is ${kind}, not an index file`, null);
      } catch (error) {
        throw new StoreError(
          "UNAVAILABLE",
          `the vector index cannot be written: ${path} is ${kind} and could not be moved aside (${describeError(error)})`,
        );
      }
    }
  }

  /**
   * Writes the index file and its description, then prunes the log entries it holds. Files
   * are written beside the final ones and renamed under the write lock, index first: a crash
   * between the two renames leaves a description that no longer matches the file (rebuilt).
   * Returns the identity of the file installed, undefined when it was not (another process
   * holds the lock or wrote a newer one).
   */
  async save(
    loaded: LoadedIndex,
    options: { wait: boolean; onProgress?: (p: VectorIndexProgress) => void },
  ): Promise<SavedFile | undefined> {
    const { onProgress } = options;
    onProgress?.({ phase: "save", done: 0, total: 1 });
    this.removeLeftovers();
    const suffix = `.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    const tmpFile = `${this.file}${suffix}`;
    const tmpHeader = `${this.headerFile}${suffix}`;
    let installed: SavedFile | undefined;
    try {
      loaded.index.save(tmpFile);
      // What the file holds: queries may catch the index up while the file is hashed.
      const highWater = loaded.highWater;
      const count = loaded.index.size();
      const unsaved = loaded.unsaved;
      const bytes = statSync(tmpFile).size;
      const header: FileHeader = {
        format: FORMAT,
        library: LIBRARY,
        fingerprint: loaded.fingerprint,
        dimensions: loaded.dimensions,
        quantization: loaded.settings.quantization,
        connectivity: loaded.settings.connectivity,
        expansionAdd: loaded.settings.expansionAdd,
        highWater,
        count,
        bytes,
        checksum: (await checksum(tmpFile)).checksum,
        savedAt: new Date().toISOString(),
      };
      writeFileSync(tmpHeader, `${JSON.stringify(header, null, 2)}\n`);
      const install = () => {
        // Another process may have written a newer file meanwhile, or re-embedded: keep theirs.
        const current = this.readHeader();
        if (this.host.fingerprint() !== loaded.fingerprint) return;
        if (current && current.fingerprint === loaded.fingerprint && current.highWater > highWater && existsSync(this.file)) return;
        if (highWater < this.log.floor()) return;
        this.clearWay();
        renameSync(tmpFile, this.file);
        renameSync(tmpHeader, this.headerFile);
        this.log.prune(highWater);
        loaded.unsaved = Math.max(0, loaded.unsaved - unsaved);
        installed = { identity: identity(statSync(this.file)), highWater, count };
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
    return installed;
  }

  /** The state of the stored index for `vectors` embedded chunks; the file's checksum is verified (about 1 s per GB). */
  async status(settings: VectorIndexSettings, vectors: number, width: (size: number) => number): Promise<VectorIndexStatus> {
    const { header, damage } = await this.inspect(settings);
    const usable = header !== undefined;
    const behind = usable ? this.log.behind(header.highWater) : 0;
    const state: VectorIndexStatus["state"] =
      vectors < Math.max(1, settings.threshold) && !usable ? "exact" : !usable ? "missing" : behind > 0 ? "behind" : "ready";
    const searchWidth = state === "exact" ? 0 : width(vectors);
    const note = latestDamage(this.file);
    const damaged: VectorIndexStatus["damaged"] = damage
      ? { foundAt: new Date().toISOString(), reason: damage, setAside: null, rebuilt: false }
      : note
        ? { ...note, rebuilt: usable && header.savedAt >= note.foundAt }
        : undefined;
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
      ...(searchWidth > settings.expansionSearch ? { searchWidth } : {}),
      ...(damaged ? { damaged } : {}),
    };
  }
}
