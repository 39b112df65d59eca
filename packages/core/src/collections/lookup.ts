// Reading collections by name from a database's context: shared by Collections and by search
// (which checks that a searched collection exists and is enabled).
import type { CollectionRecord } from "@docdb/store";
import type { DatabaseContext } from "../database/context.js";
import { DocDBError, echo } from "../errors.js";
import type { CollectionInfo, ImportSettings } from "./types.js";
import { validateCollectionName } from "./validate.js";

function toInfo(row: CollectionRecord): CollectionInfo {
  return {
    name: row.name,
    description: row.description,
    source: row.source,
    enabled: row.enabled,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    last_import_at: row.lastImportAt,
    settings: row.settings as ImportSettings,
  };
}

/** All collections, or only the enabled ones (`{ all: false }`). Sorted by name. */
export async function listCollections(ctx: DatabaseContext, options: { all?: boolean } = { all: true }): Promise<CollectionInfo[]> {
  const rows = await ctx.store.listCollections();
  return rows.filter((c) => options.all !== false || c.enabled).map(toInfo);
}

/** A collection by name, or undefined. */
export async function findCollection(ctx: DatabaseContext, name: string): Promise<CollectionInfo | undefined> {
  const valid = validateCollectionName(name);
  const row = await ctx.store.getCollection(valid);
  return row ? toInfo(row) : undefined;
}

/** A collection by name; NOT_FOUND (listing the known ones) when there is none. */
export async function getCollection(ctx: DatabaseContext, name: string): Promise<CollectionInfo> {
  const found = await findCollection(ctx, name);
  if (!found) {
    const names = (await listCollections(ctx)).map((c) => c.name);
    const known =
      names.length > 0 ? `; collections: ${names.join(", ")}` : "; create one with `docdb collection add -n NAME -d DESCRIPTION -s DIR`";
    throw new DocDBError("NOT_FOUND", `no collection "${echo(name)}" in database "${ctx.name}"${known}`);
  }
  return found;
}
