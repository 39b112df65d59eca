// The `meta` rows (embedding model record, settings, reused-vector total), counts, and the
// change token; recording a model (re)creates the vector table for its dimension.
import { type EmbeddingInfo, type StoreCounts, StoreError } from "@docdb/store";
import type { StoreContext } from "./connection.js";
import { type Queryable, quoteIdent } from "./db.js";

/** HNSW indexes `vector` columns up to this many dimensions; larger ones are always scanned exactly. */
export const HNSW_MAX_DIMENSIONS = 2000;
const SETTING_PREFIX = "setting:";
/** The meta row holding StoreCounts.reusedVectors (the same key as SQLite's). */
const REUSED_VECTORS_KEY = "reused_vectors";
export const EMBEDDING_KEYS = ["embedding_provider", "embedding_model", "embedding_dimensions"];

export async function readMeta(ctx: StoreContext, client: Queryable | undefined, keys: string[]): Promise<Map<string, string>> {
  const sql = `SELECT key, value FROM ${ctx.s}.meta WHERE key = ANY($1::text[])`;
  const rows = client
    ? (await client.query<{ key: string; value: string }>(sql, [keys])).rows
    : await ctx.read<{ key: string; value: string }>(sql, [keys]);
  return new Map(rows.map((r) => [r.key, r.value]));
}

/** The recorded model, when all of its meta rows are there. */
export function embeddingOf(meta: Map<string, string>): EmbeddingInfo | undefined {
  const provider = meta.get("embedding_provider");
  const model = meta.get("embedding_model");
  const dimensions = meta.get("embedding_dimensions");
  if (provider === undefined || model === undefined || dimensions === undefined) return undefined;
  return { provider, model, dimensions: Number(dimensions) };
}

/** The recorded model's dimensions, read inside a transaction. */
export async function dimensions(ctx: StoreContext, client: Queryable): Promise<number | undefined> {
  return embeddingOf(await readMeta(ctx, client, EMBEDDING_KEYS))?.dimensions;
}

async function setMeta(ctx: StoreContext, client: Queryable, key: string, value: string): Promise<void> {
  await client.query(`INSERT INTO ${ctx.s}.meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [
    key,
    value,
  ]);
}

export async function setEmbeddingInfo(ctx: StoreContext, info: EmbeddingInfo, options: { replace?: boolean } = {}): Promise<void> {
  const dims = info.dimensions;
  const { s } = ctx;
  if (!Number.isInteger(dims) || dims < 1 || dims > ctx.capabilities.maxDimensions) {
    throw new StoreError("INVALID_REQUEST", `embedding dimensions must be an integer from 1 to ${ctx.capabilities.maxDimensions}`);
  }
  await ctx.db.transaction(async (client) => {
    await client.query(`LOCK TABLE ${s}.meta IN SHARE ROW EXCLUSIVE MODE`);
    const current = embeddingOf(await readMeta(ctx, client, EMBEDDING_KEYS));
    if (current && !options.replace && current.dimensions !== dims) {
      throw new StoreError(
        "INVALID_REQUEST",
        `database ${ctx.name} holds ${current.dimensions}-dimensional vectors (${current.provider}/${current.model}); re-embed to change to ${dims}`,
      );
    }
    if (!current || options.replace) {
      await client.query(`DROP TABLE IF EXISTS ${s}.chunk_vectors`);
      await client.query(`UPDATE ${s}.chunks SET embedded = FALSE WHERE embedded`);
      await client.query(
        `CREATE TABLE ${s}.chunk_vectors (seq BIGINT PRIMARY KEY REFERENCES ${s}.chunks (seq) ON DELETE CASCADE, embedding ${ctx.vectorType}(${dims}) NOT NULL)`,
      );
      if (dims <= HNSW_MAX_DIMENSIONS) {
        await client.query(
          `CREATE INDEX chunk_vectors_hnsw ON ${s}.chunk_vectors USING hnsw (embedding ${quoteIdent(ctx.info.vectorSchema)}.vector_cosine_ops)`,
        );
      }
    }
    await setMeta(ctx, client, "embedding_provider", info.provider);
    await setMeta(ctx, client, "embedding_model", info.model);
    await setMeta(ctx, client, "embedding_dimensions", String(dims));
    await ctx.bump(client);
  });
}

export async function getSetting(ctx: StoreContext, key: string): Promise<string | undefined> {
  const rows = await ctx.read<{ value: string }>(`SELECT value FROM ${ctx.s}.meta WHERE key = $1`, [SETTING_PREFIX + key]);
  return rows[0]?.value;
}

export async function setSetting(ctx: StoreContext, key: string, value: string | undefined): Promise<void> {
  await ctx.db.transaction(async (client) => {
    if (value === undefined) await client.query(`DELETE FROM ${ctx.s}.meta WHERE key = $1`, [SETTING_PREFIX + key]);
    else await setMeta(ctx, client, SETTING_PREFIX + key, value);
    await ctx.bump(client);
  });
}

/** Adds to the running total StoreCounts.reusedVectors reports, in the write's transaction. */
export async function addReusedVectors(ctx: StoreContext, client: Queryable, reused: number): Promise<void> {
  await client.query(
    `INSERT INTO ${ctx.s}.meta AS m (key, value) VALUES ($1, $2)
     ON CONFLICT (key) DO UPDATE SET value = (m.value::bigint + excluded.value::bigint)::text`,
    [REUSED_VECTORS_KEY, String(reused)],
  );
}

export async function hasVectorTable(ctx: StoreContext): Promise<boolean> {
  const rows = await ctx.read(`SELECT to_regclass($1) IS NOT NULL AS ok`, [`${ctx.s}.chunk_vectors`]);
  return rows[0]?.ok === true;
}

export async function counts(ctx: StoreContext): Promise<StoreCounts> {
  const { s } = ctx;
  const hasVectors = await hasVectorTable(ctx);
  const rows = await ctx.read(
    `SELECT (SELECT count(*) FROM ${s}.documents) AS documents,
            (SELECT count(*) FROM ${s}.chunks) AS chunks,
            (SELECT count(*) FROM ${s}.chunks WHERE embedded) AS embedded,
            (SELECT count(*) FROM ${s}.chunks c WHERE c.kw_length = 0 OR EXISTS (SELECT 1 FROM ${s}.postings p WHERE p.seq = c.seq)) AS keyword_rows,
            ${hasVectors ? `(SELECT count(*) FROM ${s}.chunk_vectors)` : "0"} AS vectors,
            (SELECT value FROM ${s}.meta WHERE key = '${REUSED_VECTORS_KEY}') AS reused_vectors`,
  );
  const r = rows[0] ?? {};
  const chunks = Number(r.chunks);
  const embedded = Number(r.embedded);
  return {
    documents: Number(r.documents),
    chunks,
    embedded,
    pending: chunks - embedded,
    keywordRows: Number(r.keyword_rows),
    vectors: Number(r.vectors),
    reusedVectors: Number(r.reused_vectors ?? 0),
  };
}

export async function changeToken(ctx: StoreContext): Promise<string> {
  const rows = await ctx.read<{ version: string; instance: string | null }>(
    `SELECT c.version::text AS version, (SELECT value FROM ${ctx.s}.meta WHERE key = 'instance') AS instance FROM ${ctx.s}.counters c WHERE c.id = 1`,
  );
  const r = rows[0];
  if (!r) throw new StoreError("INTERNAL", `database ${ctx.name} has no change counter`);
  return `${r.instance ?? ""}:${r.version}`;
}
