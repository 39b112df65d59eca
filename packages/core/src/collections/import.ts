import { promises as fs } from "node:fs";
import { type ChunkOptions, DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE } from "@docdb/chunker";
import type { DocumentWrite, Store, StoredFile } from "@docdb/store";
import { type Analyse, type AnalyseHere, analysed, analyseInThread } from "../analysis.js";
import { nodeCrypto } from "../builtins.js";
import type { DatabaseContext } from "../database/context.js";
import { embedPending } from "../database/embedding.js";
import { assertSameModel } from "../embedding-guard.js";
import { DocDBError, echo } from "../errors.js";
import type { ExtractFormatName } from "../extraction.js";
import { contentHash as hashText, newId, toStoredChunks } from "../stored-chunks.js";
import { chunkFile, chunkingKey } from "./chunk-file.js";
import { decodeText, fileKind } from "./file-kind.js";
import { EXTRACTION_VERSION, extractedFileWrite } from "./import-document.js";
import {
  type CollectionInfo,
  DEFAULT_MAX_DOCUMENT_SIZE,
  DEFAULT_MAX_FILE_SIZE,
  IMPORT_MODES,
  type ImportFailure,
  type ImportOptions,
  type ImportProgress,
  type ImportSettings,
  type ImportSummary,
  type SkipReason,
} from "./types.js";
import { validatePositiveInteger } from "./validate.js";
import { type WalkedFile, walkFolder } from "./walk.js";

/** What an import works on: one database's context and the chunking defaults. */
export interface ImportTarget {
  ctx: DatabaseContext;
  settingsDefaults: ChunkOptions;
}

/** Files written per transaction: short enough that other writers wait little. */
const WRITE_BATCH_FILES = 32;
/** ...and at most this many characters of text per transaction. */
const WRITE_BATCH_CHARS = 2_000_000;

function resolveSettings(target: ImportTarget, collection: CollectionInfo, options: ImportOptions): Required<ImportSettings> {
  const saved = collection.settings;
  const defaults = target.settingsDefaults;
  const settings = {
    chunk_size: options.chunk_size ?? saved.chunk_size ?? defaults.size ?? DEFAULT_CHUNK_SIZE,
    chunk_overlap: options.chunk_overlap ?? saved.chunk_overlap ?? defaults.overlap ?? DEFAULT_CHUNK_OVERLAP,
    max_file_size: options.max_file_size ?? saved.max_file_size ?? DEFAULT_MAX_FILE_SIZE,
  };
  validatePositiveInteger(settings.chunk_size, "chunk size", 10);
  validatePositiveInteger(settings.chunk_overlap, "chunk overlap", 0);
  validatePositiveInteger(settings.max_file_size, "max file size");
  if (settings.chunk_overlap >= settings.chunk_size / 2) {
    throw new DocDBError(
      "INVALID_REQUEST",
      `chunk overlap (${settings.chunk_overlap}) must be less than half the chunk size (${settings.chunk_size})`,
    );
  }
  return settings;
}

function interrupted(signal: AbortSignal | undefined): void {
  if (!signal?.aborted) return;
  throw new DocDBError(
    "INTERNAL",
    "import interrupted; every file written so far is complete, run the import again with --mode update to finish",
    { cause: signal.reason },
  );
}

/**
 * Walks the collection's folder and brings its documents in line with it. Each file's
 * document, chunks and file row commit together (a few files per transaction), so an import
 * stopped at any point (Ctrl-C, a crash, SIGKILL) leaves whole files only, and `update`
 * carries on from there. Embedding comes after the writes and is resumable too.
 */
export async function importCollection(target: ImportTarget, collection: CollectionInfo, options: ImportOptions): Promise<ImportSummary> {
  const started = performance.now();
  const mode = options.mode ?? "update";
  if (!IMPORT_MODES.includes(mode)) {
    throw new DocDBError("INVALID_REQUEST", `mode must be one of ${IMPORT_MODES.join(", ")}, got "${echo(mode)}"`);
  }
  const settings = resolveSettings(target, collection, options);
  const { ctx } = target;
  const { store, name: databaseName } = ctx;
  const name = collection.name;
  const model = options.embed === false ? null : ctx.embedding;
  if (model) assertSameModel(await store.getEmbeddingInfo(), model, databaseName);

  if (mode === "new") {
    const { documents } = await store.collectionCounts(name);
    if (documents > 0) {
      throw new DocDBError(
        "CONFLICT",
        `collection "${name}" already has ${documents} document(s): use --mode update to import only what changed, or --mode replace to rebuild it`,
      );
    }
  }

  const progress: ImportProgress = { phase: "scan", files_done: 0, files_total: 0, chunks: 0, embedded: 0, embed_total: 0, failed: 0 };
  const report = () => options.onProgress?.({ ...progress });
  report();
  let walked: Awaited<ReturnType<typeof walkFolder>>;
  try {
    walked = await walkFolder(collection.source, {
      maxFileSize: settings.max_file_size,
      maxDocumentSize: documentLimit(settings),
      signal: options.signal,
    });
  } catch (error) {
    interrupted(options.signal);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new DocDBError(
        "NOT_FOUND",
        `folder ${collection.source} of collection "${name}" is gone: point it elsewhere with \`docdb collection update -n ${name} -s DIR\``,
      );
    }
    throw error;
  }

  // In bounded batches: a replace of thousands of files never holds the write lock for long.
  if (mode === "replace") await store.clearCollection(name);
  // Saved before writing, so an interrupted run finishes with the same settings.
  await store.updateCollection(name, { settings });

  const chunking = chunkingKey(settings.chunk_size, settings.chunk_overlap);
  const existing = new Map((await store.listFiles(name)).map((f) => [f.path, f]));
  const seen = new Set<string>();
  const summary: ImportSummary = {
    collection: name,
    mode,
    files: walked.files.length,
    added: 0,
    updated: 0,
    removed: 0,
    unchanged: 0,
    skipped: {},
    chunks: 0,
    total_chunks: 0,
    embedded: 0,
    reused_vectors: 0,
    pending: 0,
    seconds: 0,
    warnings: [],
    failed: [],
    changed: { added: [], updated: [], removed: [] },
  };
  const skip = (reason: SkipReason) => {
    summary.skipped[reason] = (summary.skipped[reason] ?? 0) + 1;
  };
  const fail = (failure: ImportFailure) => {
    summary.failed.push(failure);
    progress.failed++;
    options.onProgress?.({ ...progress, failure });
  };
  for (const s of walked.skipped) {
    // A document too large to extract is named with its reason, not only counted.
    if (s.reason === "too_large" && fileKind(s.path).kind === "document") {
      const limit = documentLimit(settings);
      fail({
        path: s.path,
        reason: "too_large",
        message: `the file is over the ${limit}-byte limit for documents (max_file_size raises it)`,
      });
    } else skip(s.reason);
  }

  progress.phase = "files";
  progress.files_total = walked.files.length;
  report();
  let lastReport = 0;
  const batch = new WriteBatch(store, ctx.services.analyse ?? (async (writes) => analyseInThread(writes)), ctx.services.analyseHere);
  for (const file of walked.files) {
    interrupted(options.signal);
    const outcome = await importFile(store, batch, name, file, existing.get(file.path), chunking, settings);
    if (outcome.kind === "failed") {
      // Its earlier document, if any, is kept: nothing is lost to a file that cannot be read now.
      seen.add(file.path);
      fail(outcome.failure);
    } else if (outcome.kind === "skipped") {
      skip(outcome.reason);
      if (outcome.why) summary.warnings.push(`${file.path}: skipped, ${outcome.why}`);
      // A file we cannot read right now keeps its old document rather than losing it.
      if (outcome.reason === "unreadable") seen.add(file.path);
    } else {
      seen.add(file.path);
      if (outcome.kind === "unchanged") summary.unchanged++;
      else {
        summary[outcome.kind]++;
        summary.changed[outcome.kind].push(file.path);
        summary.chunks += outcome.chunks;
        progress.chunks += outcome.chunks;
        for (const warning of outcome.warnings ?? []) summary.warnings.push(warning);
      }
    }
    progress.files_done++;
    const now = performance.now();
    if (now - lastReport > 100 || progress.files_done === progress.files_total) {
      lastReport = now;
      report();
    }
  }

  await batch.flush();
  summary.reused_vectors = batch.reusedVectors;

  for (const path of existing.keys()) {
    if (seen.has(path)) continue;
    interrupted(options.signal);
    await store.removeFile(name, path);
    summary.removed++;
    summary.changed.removed.push(path);
  }
  await store.updateCollection(name, { lastImportAt: new Date().toISOString() });

  if (model) {
    progress.phase = "embed";
    progress.embed_total = (await store.counts()).pending;
    report();
    try {
      // Other writers' pending chunks are embedded too, but only this collection's are counted.
      const countOwn = async (chunkIds: string[]) => {
        summary.embedded += (await store.chunkHits(chunkIds)).filter((hit) => hit.collection === name).length;
      };
      const onProgress = ({ done, total }: { done: number; total: number }) => {
        progress.embedded = done;
        progress.embed_total = total;
        report();
      };
      await embedPending(ctx, { signal: options.signal, onProgress }, countOwn);
    } catch (error) {
      interrupted(options.signal);
      if (!DocDBError.isInstance(error) || error.code !== "EMBEDDING_UNAVAILABLE") throw error;
      // The error already says what to fix and the command to run afterwards.
      summary.warnings.push(`the files are stored and keyword-searchable, but ${error.message}`);
    }
  }
  const counts = await store.collectionCounts(name);
  summary.total_chunks = counts.chunks;
  summary.pending = counts.pending;
  if (!model && summary.chunks > 0 && options.embed !== false) {
    summary.warnings.push(
      `no embedding model configured: ${summary.pending} chunk(s) wait for \`docdb embed --pending\`; keyword search works now`,
    );
  }
  summary.seconds = Math.round((performance.now() - started) / 10) / 100;
  ctx.logger.info(
    {
      db: databaseName,
      collection: name,
      mode,
      added: summary.added,
      updated: summary.updated,
      removed: summary.removed,
      unchanged: summary.unchanged,
      failed: summary.failed.length,
      chunks: summary.chunks,
      seconds: summary.seconds,
    },
    "import",
  );
  return summary;
}

/** Largest document extracted in a folder import: 64 MiB, or max_file_size when larger. */
function documentLimit(settings: Required<ImportSettings>): number {
  return Math.max(settings.max_file_size, DEFAULT_MAX_DOCUMENT_SIZE);
}

type FileOutcome =
  | { kind: "added" | "updated"; chunks: number; warnings?: string[] }
  | { kind: "failed"; failure: ImportFailure }
  | { kind: "unchanged" }
  | { kind: "skipped"; reason: SkipReason; why?: string };

/**
 * Files waiting to be written, committed a few at a time: one transaction per file made
 * imports slow (a commit per file), one per import would hold the write lock for minutes.
 */
class WriteBatch {
  private writes: DocumentWrite[] = [];
  private chars = 0;
  /** Vectors carried over from replaced documents so far. */
  reusedVectors = 0;
  constructor(
    private readonly store: Store,
    private readonly analyse: Analyse,
    private readonly here?: AnalyseHere,
  ) {}

  async add(write: DocumentWrite): Promise<void> {
    this.writes.push(write);
    this.chars += write.document.content.length;
    if (this.writes.length >= WRITE_BATCH_FILES || this.chars >= WRITE_BATCH_CHARS) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.writes.length === 0) return;
    const writes = this.writes;
    this.writes = [];
    this.chars = 0;
    // Words analysed before the transaction, which then holds the write lock only to insert.
    await analysed(this.analyse(writes), this.here);
    for (const result of await this.store.writeDocuments(writes)) this.reusedVectors += result.reusedVectors;
  }
}

async function importFile(
  store: Store,
  batch: WriteBatch,
  name: string,
  file: WalkedFile,
  row: StoredFile | undefined,
  baseChunking: string,
  settings: Required<ImportSettings>,
): Promise<FileOutcome> {
  const kind = fileKind(file.path);
  const document = kind.kind === "document";
  const chunking = document ? `${baseChunking}:${EXTRACTION_VERSION}` : baseChunking;
  if (row && row.size === file.size && row.mtime === file.mtime && row.chunking === chunking) return { kind: "unchanged" };
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file.absolute);
  } catch {
    return { kind: "skipped", reason: "unreadable" };
  }
  // The file may have grown between the walk and the read.
  if (bytes.length > (document ? documentLimit(settings) : settings.max_file_size)) return { kind: "skipped", reason: "too_large" };
  const contentHash = nodeCrypto().createHash("sha256").update(bytes).digest("hex");
  if (row && row.contentHash === contentHash && row.chunking === chunking) {
    await store.touchFile(name, file.path, bytes.length, file.mtime);
    return { kind: "unchanged" };
  }
  const record = { path: file.path, size: bytes.length, mtime: file.mtime, contentHash, chunking };
  if (document) {
    const extracted = await extractedFileWrite(
      bytes,
      file.path,
      kind.language as ExtractFormatName,
      settings.chunk_size,
      settings.chunk_overlap,
    );
    if ("failure" in extracted) return { kind: "failed", failure: extracted.failure };
    await batch.add({ ...extracted.document, file: { collection: name, record } });
    return { kind: row ? "updated" : "added", chunks: extracted.chunks, warnings: extracted.warnings };
  }
  const text = decodeText(bytes);
  if (text === null) {
    // A file that looks like text but holds a NUL further on is named: it may be a log or a dump
    // someone expects to find (a NUL in the first 8 KB marks an ordinary binary file: counted only).
    const nul = bytes.indexOf(0);
    if (nul < 8192) return { kind: "skipped", reason: "binary" };
    return { kind: "skipped", reason: "binary", why: `it holds a NUL byte at byte ${nul}, which no engine stores as text` };
  }
  if (text.trim() === "") return { kind: "skipped", reason: "empty" };

  const chunks = await chunkFile(text, kind, settings.chunk_size, settings.chunk_overlap);
  await batch.add({
    document: {
      id: newId(),
      title: file.path,
      content: text,
      contentHash: hashText(text),
      metadata: { path: file.path, kind: kind.kind, language: kind.language },
    },
    chunks: toStoredChunks(text, chunks, file.path),
    file: { collection: name, record },
  });
  return { kind: row ? "updated" : "added", chunks: chunks.length };
}
