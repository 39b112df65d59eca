// The HNSW index on disk: `<name>.db.hnsw` (usearch's format) and its description
// `<name>.db.hnsw.json`; reading them when they fit the model and settings, and writing them safely.
import { closeSync, existsSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import type { VectorIndexProgress, VectorIndexSettings } from "@docdb/store";
import type * as USearchModule from "usearch";
import type { IndexLog, VectorIndexHost } from "./log.js";
import { LIBRARY, loadUsearch, type USearch } from "./settings.js";

const FORMAT = 1;

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
  /** Hash of samples of the file (start, end, and every MiB): catches truncation and most damage. */
  sample: string;
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

  /** The stored index when it is usable for this model, dimension and settings; undefined otherwise. */
  async load(fingerprint: string, dimensions: number, settings: VectorIndexSettings): Promise<LoadedIndex | undefined> {
    const header = this.readHeader();
    if (!header || !existsSync(this.file)) return undefined;
    if (!this.matches(header, fingerprint, dimensions, settings)) return undefined;
    // Entries the file has not seen were pruned from the log, or the database is older than the file.
    if (header.highWater < this.log.floor() || header.highWater > this.log.high()) return undefined;
    try {
      const size = statSync(this.file).size;
      if (size !== header.bytes || sampleHash(this.file, size) !== header.sample) return undefined;
      const usearch = await loadUsearch();
      const index = newIndex(usearch, dimensions, settings);
      index.load(this.file);
      if (index.size() !== header.count || index.dimensions() !== dimensions) return undefined;
      return { index, fingerprint, dimensions, settings, highWater: header.highWater, unsaved: 0 };
    } catch {
      return undefined;
    }
  }

  /**
   * Writes the index file and its description, then prunes the log entries it holds. Files
   * are written beside the final ones and renamed under the write lock, index first: a crash
   * between the two renames leaves a description that no longer matches the file (rebuilt).
   */
  async save(loaded: LoadedIndex, options: { wait: boolean; onProgress?: (p: VectorIndexProgress) => void }): Promise<void> {
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
        if (loaded.highWater < this.log.floor()) return;
        renameSync(tmpFile, this.file);
        renameSync(tmpHeader, this.headerFile);
        this.log.prune(loaded.highWater);
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
}
