// The page's JSON API (`/ui/api/*`): one table of endpoints, each declaring the access it needs
// (read, write or admin), so one check in the handler decides what a caller may do.
import { COLLECTION_NAME_PATTERN, type Database, DEFAULT_DB_NAME, type DocDB, DocDBError, type InsertInput } from "@docdb/core";
import type { Access, Caller } from "../auth/caller.js";
import { listDocumentsPage } from "./documents.js";
import { objectBody, optionalString } from "./input.js";
import { searchExplained } from "./search.js";

export interface UiRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  caller: Caller;
  signal: AbortSignal;
}

/** A JSON answer, or a stream of server-sent events ending in `done` (or `error`). */
export type UiReply = { json: unknown; status?: number } | { stream: (emit: (event: string, data: unknown) => void) => Promise<unknown> };

export interface UiRoute {
  method: "GET" | "POST" | "DELETE";
  /** Below /ui/api; `:db` names a database the caller must be allowed to see. */
  pattern: string;
  access: Access;
  /** Writes: the action the audit trail records when the call succeeds. */
  audit?: string;
  handle(docdb: DocDB, request: UiRequest): Promise<UiReply>;
}

function invalid(message: string): DocDBError {
  return new DocDBError("INVALID_REQUEST", message);
}

function collectionName(value: unknown): string {
  const name = optionalString(value, "collection");
  if (name === undefined || !COLLECTION_NAME_PATTERN.test(name)) {
    throw invalid(`collection must match ${COLLECTION_NAME_PATTERN} (letters, digits, _ and -)`);
  }
  return name;
}

/** A database by name; the default one is made on first use, as the CLI does. */
function open(docdb: DocDB, name: string): Promise<Database> {
  return docdb.database(name, { create: name === DEFAULT_DB_NAME });
}

async function database(docdb: DocDB, request: UiRequest): Promise<Database> {
  return open(docdb, request.params.db ?? "");
}

async function describeDatabase(docdb: DocDB, name: string): Promise<unknown> {
  const db = await open(docdb, name);
  const [status, index] = await Promise.all([db.status(), db.indexStatus().catch(() => null)]);
  return { ...status, index };
}

export const UI_ROUTES: readonly UiRoute[] = [
  {
    method: "GET",
    pattern: "/me",
    access: "read",
    handle: async (_docdb, { caller }) => ({ json: { name: caller.name, access: caller.access, databases: caller.databases } }),
  },
  {
    method: "GET",
    pattern: "/databases",
    access: "read",
    handle: async (docdb, { caller }) => {
      const all = await docdb.databaseNames();
      if (!all.includes(DEFAULT_DB_NAME)) all.unshift(DEFAULT_DB_NAME);
      const names = all.filter((n) => caller.databases === "*" || caller.databases.includes(n));
      return { json: { databases: await Promise.all(names.map((n) => describeDatabase(docdb, n))) } };
    },
  },
  {
    method: "GET",
    pattern: "/databases/:db",
    access: "read",
    handle: async (docdb, request) => ({ json: await describeDatabase(docdb, (await database(docdb, request)).name) }),
  },
  {
    method: "GET",
    pattern: "/databases/:db/collections",
    access: "read",
    handle: async (docdb, request) => {
      const db = await database(docdb, request);
      // `enabled` collections are the ones a watcher re-imports as their folders change.
      const collections = (await db.collections.status()).map((c) => ({ ...c, watched: c.enabled }));
      return { json: { collections } };
    },
  },
  {
    method: "POST",
    pattern: "/databases/:db/collections",
    // Reads a folder of the server's machine into the database: more than a writer may do.
    access: "admin",
    audit: "collection_add",
    handle: async (docdb, request) => {
      const body = objectBody(request.body);
      const db = await database(docdb, request);
      const name = collectionName(body.name);
      const source = optionalString(body.source, "source");
      if (source === undefined) throw invalid("source (the folder to import) is required");
      const description = optionalString(body.description, "description") ?? "";
      return { json: await db.collections.add({ name, source, description }), status: 201 };
    },
  },
  {
    method: "POST",
    pattern: "/databases/:db/collections/:name/import",
    access: "write",
    audit: "import",
    handle: async (docdb, request) => {
      const db = await database(docdb, request);
      const name = collectionName(request.params.name);
      const mode = optionalString(objectBody(request.body ?? {}).mode, "mode") as "update" | "replace" | undefined;
      return {
        stream: (emit) => db.collections.import(name, { mode, signal: request.signal, onProgress: (p) => emit("progress", p) }),
      };
    },
  },
  {
    method: "DELETE",
    pattern: "/databases/:db/collections/:name",
    access: "write",
    audit: "collection_remove",
    handle: async (docdb, request) => ({
      json: await (await database(docdb, request)).collections.delete(collectionName(request.params.name)),
    }),
  },
  {
    method: "GET",
    pattern: "/databases/:db/documents",
    access: "read",
    handle: async (docdb, request) => ({ json: await listDocumentsPage(await database(docdb, request), request.query) }),
  },
  {
    method: "POST",
    pattern: "/databases/:db/documents",
    access: "write",
    audit: "insert",
    handle: async (docdb, request) => {
      const body = objectBody(request.body);
      if (typeof body.text !== "string") throw invalid("text (the document's text) is required");
      const input: InsertInput = { text: body.text };
      const title = optionalString(body.title, "title");
      if (title !== undefined) input.title = title;
      const source = optionalString(body.source, "source");
      if (source !== undefined) input.source = source;
      if (body.format === "markdown" || body.format === "text") input.format = body.format;
      if (body.collection !== undefined && body.collection !== "") input.collection = collectionName(body.collection);
      if (body.metadata !== undefined) input.metadata = objectBody(body.metadata);
      return { json: await (await database(docdb, request)).insertDocument(input), status: 201 };
    },
  },
  {
    method: "GET",
    pattern: "/databases/:db/documents/:id",
    access: "read",
    handle: async (docdb, request) => {
      const db = await database(docdb, request);
      const view = await db.getDocument(request.params.id ?? "");
      // The chunks' text and headings, which the document view draws as boundaries.
      const texts = view.chunks.map((c) => ({ chunk_id: c.chunk_id, text: view.text.slice(c.start, c.end) }));
      return { json: { ...view, chunks: view.chunks.map((c, i) => ({ ...c, text: texts[i]?.text ?? "" })) } };
    },
  },
  {
    method: "DELETE",
    pattern: "/databases/:db/documents/:id",
    access: "write",
    audit: "delete",
    handle: async (docdb, request) => ({ json: await (await database(docdb, request)).deleteDocument(request.params.id ?? "") }),
  },
  {
    method: "POST",
    pattern: "/databases/:db/search",
    access: "read",
    handle: async (docdb, request) => ({ json: await searchExplained(await database(docdb, request), objectBody(request.body)) }),
  },
  {
    method: "POST",
    pattern: "/databases/:db/embed",
    access: "write",
    audit: "embed",
    handle: async (docdb, request) => {
      const db = await database(docdb, request);
      return { stream: (emit) => db.embedPending({ signal: request.signal, onProgress: (p) => emit("progress", p) }) };
    },
  },
  {
    method: "POST",
    pattern: "/databases/:db/rebuild-index",
    access: "write",
    audit: "index_rebuild",
    handle: async (docdb, request) => {
      const db = await database(docdb, request);
      return { stream: (emit) => db.rebuildIndex({ onProgress: (p) => emit("progress", p) }) };
    },
  },
  {
    method: "GET",
    pattern: "/databases/:db/memory",
    access: "read",
    handle: async (docdb, request) => {
      const db = await database(docdb, request);
      const warnings: string[] = [];
      const [topics, qa, knowledge, merge] = await Promise.all([
        db.memory.listTopics(),
        db.memory.listQa({ include_merged: true }),
        db.memory.listKnowledge(),
        db.memory.mergeCandidates().catch((error: unknown) => {
          warnings.push(`merge suggestions unavailable: ${(error as Error).message}`);
          return { groups: [], threshold: 0, warnings: [] };
        }),
      ]);
      return { json: { topics, qa: qa.slice(0, 500), knowledge: knowledge.slice(0, 500), merge, warnings } };
    },
  },
];

/** The route answering `method path` (path below /ui/api), with its parameters. */
export function matchRoute(method: string, path: string): { route: UiRoute; params: Record<string, string> } | undefined {
  const parts = path.split("/").filter(Boolean);
  for (const route of UI_ROUTES) {
    if (route.method !== method) continue;
    const want = route.pattern.split("/").filter(Boolean);
    if (want.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const fits = want.every((segment, i) => {
      const part = parts[i] ?? "";
      if (segment.startsWith(":")) {
        try {
          params[segment.slice(1)] = decodeURIComponent(part);
        } catch {
          return false;
        }
        return true;
      }
      return segment === part;
    });
    if (fits) return { route, params };
  }
  return undefined;
}

/** True when some route serves `path` with another method (for 405 rather than 404). */
export function pathKnown(path: string): boolean {
  return ["GET", "POST", "DELETE"].some((m) => matchRoute(m, path) !== undefined);
}
