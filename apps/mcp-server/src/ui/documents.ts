// The page's document listing: one sorted page of a database's documents (agent memory left out),
// read through core's read-only SQL over the documented `documents_v` view, or a filter's listing.
import { COLLECTION_NAME_PATTERN, type Database, DocDBError, parseFilter } from "@docdb/core";

export const SORT_COLUMNS = ["created_at", "updated_at", "title", "source", "collection", "length"] as const;
export const MAX_PAGE = 200;

function rowsAsObjects(result: { columns: string[]; rows: unknown[][] }): Record<string, unknown>[] {
  return result.rows.map((row) => Object.fromEntries(result.columns.map((c, i) => [c, row[i]])));
}

function integer(value: string | null, fallback: number, max: number): number {
  if (value === null || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > max) throw new DocDBError("INVALID_REQUEST", `expected a whole number from 0 to ${max}`);
  return n;
}

/**
 * `sort` (one of SORT_COLUMNS), `order` (asc/desc), `offset`, `limit` (≤ 200), `collection`,
 * `filter` (JSON, the same operators as --filter; then in creation order).
 */
export async function listDocumentsPage(db: Database, query: URLSearchParams): Promise<unknown> {
  const limit = integer(query.get("limit"), 50, MAX_PAGE);
  const offset = integer(query.get("offset"), 0, 10_000_000);
  const collection = query.get("collection") || undefined;
  if (collection !== undefined && !COLLECTION_NAME_PATTERN.test(collection)) {
    throw new DocDBError("INVALID_REQUEST", `collection must match ${COLLECTION_NAME_PATTERN}`);
  }
  const filterText = query.get("filter");
  if (filterText) {
    let filter: Record<string, unknown>;
    try {
      filter = JSON.parse(filterText) as Record<string, unknown>;
    } catch (error) {
      throw new DocDBError("INVALID_REQUEST", `filter is not valid JSON: ${(error as Error).message.slice(0, 200)}`);
    }
    parseFilter(filter);
    const documents = await db.listDocuments({ limit, offset, collection, filter });
    return { documents, offset, limit, total: null, sort: "created_at", order: "asc" };
  }
  const sort = query.get("sort") ?? "created_at";
  if (!(SORT_COLUMNS as readonly string[]).includes(sort)) {
    throw new DocDBError("INVALID_REQUEST", `sort must be one of ${SORT_COLUMNS.join(", ")}`);
  }
  const order = query.get("order") === "desc" ? "DESC" : "ASC";
  // Names are checked against the pattern above, so quoting them into the text is safe.
  const where =
    collection !== undefined ? `collection = '${collection}'` : "(collection IS NULL OR substr(collection, 1, 8) <> '_memory_')";
  const page = await db.sql(
    `WITH page AS (SELECT id, key, title, source, collection, created_at, updated_at, length FROM documents_v WHERE ${where} ` +
      `ORDER BY ${sort} ${order}, id ${order} LIMIT ${limit} OFFSET ${offset}) ` +
      `SELECT page.*, (SELECT count(*) FROM chunks_v c WHERE c.doc_id = page.id) AS chunk_count, ` +
      `(SELECT count(*) FROM chunks_v c WHERE c.doc_id = page.id AND c.embedded = 0) AS pending FROM page ORDER BY ${sort} ${order}, id ${order}`,
    { max_rows: MAX_PAGE },
  );
  const total = await db.sql(`SELECT count(*) AS n FROM documents_v WHERE ${where}`);
  const documents = rowsAsObjects(page).map(({ id, ...rest }) => ({ doc_id: id, ...rest }));
  return { documents, offset, limit, total: Number(total.rows[0]?.[0] ?? 0), sort, order: order.toLowerCase() };
}
