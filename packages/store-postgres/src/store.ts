// PostgresStore: one docdb database (one PostgreSQL schema), the Store contract as a thin
// composition; each call goes to the room that owns it (read, write, delete, keyword, vector, …).
import type { KeywordQuery } from "@docdb/analyzer";
import type {
  AuditEntry,
  AuditQuery,
  AuditRecord,
  ChunkHit,
  CollectionCounts,
  CollectionPatch,
  CollectionRecord,
  DocumentSummary,
  DocumentWrite,
  EmbeddingInfo,
  EngineCapabilities,
  ExportedChunk,
  Filter,
  KeywordHit,
  PendingChunk,
  RemovedCounts,
  SearchOptions,
  SqlQueryOptions,
  SqlQueryResult,
  Store,
  StoreCounts,
  StoredChunk,
  StoredDocument,
  StoredFile,
  TokenRecord,
  VectorHit,
  VectorSearchOptions,
  WriteResult,
} from "@docdb/store";
import * as access from "./access.js";
import * as collections from "./collections.js";
import { StoreContext, type StoreHost } from "./connection.js";
import type { ServerInfo } from "./db.js";
import { deleteDocuments } from "./delete.js";
import { keywordSearch } from "./keyword.js";
import * as lease from "./lease.js";
import * as meta from "./meta.js";
import * as read from "./read.js";
import { runReadOnlySql } from "./sql.js";
import { pendingChunks, VectorCache, writeVectors } from "./vector.js";
import { writeDocuments } from "./write.js";

/** One docdb database: one PostgreSQL schema. */
export class PostgresStore implements Store {
  readonly name: string;
  readonly location: string;
  readonly capabilities: EngineCapabilities;
  private readonly ctx: StoreContext;
  private readonly vectors: VectorCache;

  constructor(
    private readonly engine: StoreHost,
    name: string,
    readonly schema: string,
    info: ServerInfo,
    private readonly onClose: () => void,
  ) {
    this.name = name;
    this.location = `${engine.location} (schema ${schema})`;
    this.capabilities = engine.capabilities;
    this.ctx = new StoreContext(engine, name, schema, info);
    this.vectors = new VectorCache(this.ctx);
  }

  async close(): Promise<void> {
    if (this.ctx.closed) return;
    this.ctx.closed = true;
    this.onClose();
  }

  // --- embedding info, settings, counts (meta.ts) ---------------------------------------

  async getEmbeddingInfo(): Promise<EmbeddingInfo | undefined> {
    return (await this.vectors.load()).info;
  }

  async setEmbeddingInfo(info: EmbeddingInfo, options: { replace?: boolean } = {}): Promise<void> {
    await meta.setEmbeddingInfo(this.ctx, info, options);
    this.vectors.invalidate();
  }

  getSetting(key: string): Promise<string | undefined> {
    return meta.getSetting(this.ctx, key);
  }

  setSetting(key: string, value: string | undefined): Promise<void> {
    return meta.setSetting(this.ctx, key, value);
  }

  claimLease(name: string, holder: string, ttlMs: number): Promise<boolean> {
    return lease.claimLease(this.ctx, name, holder, ttlMs);
  }

  releaseLease(name: string, holder: string): Promise<void> {
    return lease.releaseLease(this.ctx, name, holder);
  }

  counts(): Promise<StoreCounts> {
    return meta.counts(this.ctx);
  }

  changeToken(): Promise<string> {
    return meta.changeToken(this.ctx);
  }

  // --- writes and deletes (write.ts, delete.ts, vector.ts) ------------------------------

  writeDocuments(writes: DocumentWrite[]): Promise<WriteResult[]> {
    return writeDocuments(this.ctx, writes);
  }

  writeVectors(items: { chunkId: string; vector: Float32Array }[]): Promise<number> {
    return writeVectors(this.ctx, items);
  }

  pendingChunks(limit: number, afterChunkId?: string): Promise<PendingChunk[]> {
    return pendingChunks(this.ctx, limit, afterChunkId);
  }

  deleteDocuments(ids: string[]): Promise<RemovedCounts> {
    return deleteDocuments(this.ctx, ids);
  }

  // --- reads (read.ts) --------------------------------------------------------------------

  getDocument(id: string): Promise<StoredDocument | undefined> {
    return read.getDocument(this.ctx, id);
  }

  getDocumentByKey(key: string): Promise<StoredDocument | undefined> {
    return read.getDocumentByKey(this.ctx, key);
  }

  getChunks(docId: string): Promise<StoredChunk[]> {
    return read.getChunks(this.ctx, docId);
  }

  exportChunks(docId: string): Promise<ExportedChunk[]> {
    return read.exportChunks(this.ctx, docId);
  }

  listDocuments(options: { limit: number; offset?: number; filter?: Filter }): Promise<DocumentSummary[]> {
    return read.listDocuments(this.ctx, options);
  }

  chunkHits(chunkIds: string[]): Promise<ChunkHit[]> {
    return read.chunkHits(this.ctx, chunkIds);
  }

  // --- search (keyword.ts, vector.ts) -----------------------------------------------------

  keywordSearch(query: KeywordQuery, options: SearchOptions): Promise<KeywordHit[]> {
    return keywordSearch(this.ctx, query, options);
  }

  vectorSearch(vector: Float32Array, options: VectorSearchOptions): Promise<VectorHit[]> {
    return this.vectors.search(vector, options);
  }

  // --- collections and files (collections.ts) --------------------------------------------

  listCollections(): Promise<CollectionRecord[]> {
    return collections.listCollections(this.ctx);
  }

  getCollection(name: string): Promise<CollectionRecord | undefined> {
    return collections.getCollection(this.ctx, name);
  }

  createCollection(input: { name: string; description: string; source: string; enabled: boolean }): Promise<CollectionRecord> {
    return collections.createCollection(this.ctx, input);
  }

  updateCollection(name: string, patch: CollectionPatch): Promise<boolean> {
    return collections.updateCollection(this.ctx, name, patch);
  }

  clearCollection(name: string): Promise<RemovedCounts> {
    return collections.clearCollection(this.ctx, name);
  }

  deleteCollection(name: string): Promise<RemovedCounts> {
    return collections.deleteCollection(this.ctx, name);
  }

  collectionCounts(name: string): Promise<CollectionCounts> {
    return collections.collectionCounts(this.ctx, name);
  }

  listFiles(collection: string): Promise<StoredFile[]> {
    return collections.listFiles(this.ctx, collection);
  }

  filesOfDocuments(docIds: string[]): Promise<StoredFile[]> {
    return collections.filesOfDocuments(this.ctx, docIds);
  }

  touchFile(collection: string, path: string, size: number, mtime: number): Promise<void> {
    return collections.touchFile(this.ctx, collection, path, size, mtime);
  }

  removeFile(collection: string, path: string): Promise<number> {
    return collections.removeFile(this.ctx, collection, path);
  }

  /**
   * One read-only query over the documented views (migrations/0005_views.sql), checked by
   * PostgreSQL's own parser and run in a READ ONLY transaction capped in rows and time (see
   * sql-guard.ts and sql.ts).
   */
  async querySql(sql: string, options: SqlQueryOptions): Promise<SqlQueryResult> {
    return runReadOnlySql({ db: this.ctx.db, schema: this.schema, role: this.engine.sqlRole }, sql, options);
  }

  // --- scoped tokens and the audit trail (access.ts) -------------------------------------

  async createToken(record: TokenRecord): Promise<void> {
    await access.createToken(this.ctx, record);
  }

  async listTokens(): Promise<TokenRecord[]> {
    return access.listTokens(this.ctx);
  }

  async tokenByHash(hash: string): Promise<TokenRecord | undefined> {
    return access.tokenByHash(this.ctx, hash);
  }

  async revokeToken(name: string, at: string): Promise<boolean> {
    return access.revokeToken(this.ctx, name, at);
  }

  async appendAudit(entry: AuditEntry): Promise<void> {
    await access.appendAudit(this.ctx, entry);
  }

  async listAudit(query: AuditQuery): Promise<AuditRecord[]> {
    return access.listAudit(this.ctx, query);
  }
}
