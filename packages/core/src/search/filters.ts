// The conditions a search or listing applies: the caller's filter, path, collection and
// document ids, and agent memory kept out unless asked for.
import { allOf, type Filter } from "@docdb/store";
import { getCollection } from "../collections/lookup.js";
import type { DatabaseContext } from "../database/context.js";
import { DocDBError } from "../errors.js";
import { parseFilter } from "../filter.js";
import { ANY_MEMORY, WITHOUT_SYSTEM_COLLECTIONS } from "../memory/names.js";
import type { FindInput } from "../types.js";

/**
 * The condition that keeps agent memory out of find and list, or none when the database holds
 * no memory. Any filter makes an engine take its filtered vector path (at 100k chunks the
 * SQLite engine counts the matching chunks first, ~160 ms), and most databases never store
 * memory; asking whether it has any is one indexed lookup, made until the answer is yes (and
 * again only after the database changed).
 */
export async function withoutMemory(ctx: DatabaseContext): Promise<Filter | undefined> {
  // Once memory is seen the answer is kept: the filter stays right if memory is deleted later.
  if (!ctx.holdsMemory) {
    // "None" holds until the database changes (a write from anywhere moves the token).
    const token = await ctx.store.changeToken();
    if (ctx.noMemoryAt !== token) {
      const any = await ctx.store.listDocuments({ limit: 1, filter: ANY_MEMORY });
      ctx.holdsMemory = any.length > 0;
      ctx.noMemoryAt = ctx.holdsMemory ? undefined : token;
    }
  }
  return ctx.holdsMemory ? WITHOUT_SYSTEM_COLLECTIONS : undefined;
}

/** The filter of a find: validated, with a searched collection that exists and is enabled. */
export async function searchFilter(ctx: DatabaseContext, input: FindInput): Promise<Filter | undefined> {
  if (input.filter !== undefined && (typeof input.filter !== "object" || input.filter === null || Array.isArray(input.filter))) {
    throw new DocDBError("INVALID_REQUEST", 'filter must be a JSON object of metadata paths and values, e.g. {"lang":"ja"}');
  }
  if (input.path_prefix !== undefined && typeof input.path_prefix !== "string") {
    throw new DocDBError("INVALID_REQUEST", "path_prefix must be a string");
  }
  if (input.doc_ids !== undefined && (!Array.isArray(input.doc_ids) || input.doc_ids.some((id) => typeof id !== "string"))) {
    throw new DocDBError("INVALID_REQUEST", "doc_ids must be an array of document ids");
  }
  if (input.collection !== undefined) {
    const collection = await getCollection(ctx, input.collection);
    if (!collection.enabled) {
      throw new DocDBError(
        "NOT_FOUND",
        `collection "${collection.name}" is disabled; enable it with \`docdb collection enable -n ${collection.name}\` or search another`,
      );
    }
  }
  return allOf([
    parseFilter(input.filter),
    input.path_prefix !== undefined ? { op: "prefix", field: { builtin: "source" }, value: input.path_prefix } : undefined,
    input.collection !== undefined ? { op: "eq", field: { builtin: "collection" }, value: input.collection } : await withoutMemory(ctx),
    input.doc_ids !== undefined ? { op: "in", field: { builtin: "doc_id" }, values: input.doc_ids } : undefined,
  ]);
}
