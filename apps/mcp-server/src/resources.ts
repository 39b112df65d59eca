import { type DocDB, DocDBError, toDocDBError } from "@docdb/core";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  type Prompt,
  ReadResourceRequestSchema,
  type Resource,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod/v4";
import type { Caller } from "./auth/caller.js";
import { scopedDocDB } from "./auth/scope.js";
import { isKnowledgeUri, KNOWLEDGE_TEMPLATE, KnowledgeResources } from "./memory/resources.js";
import { invalidRequest, quote, RequestError } from "./request-error.js";

/** Documents per `resources/list` page. */
export const RESOURCE_PAGE_SIZE = 100;
/** Most values one completion answers with (MCP's own limit). */
const MAX_COMPLETIONS = 100;

export const DOCUMENT_TEMPLATE = "docdb://{db}/documents/{id}";
export const COLLECTION_TEMPLATE = "docdb://{db}/collections/{collection}";
export const SEARCH_PROMPT = "search_docdb";

export interface DocdbResourcesOptions {
  /** The database completions fall back to when the client has not chosen one. */
  defaultDb: string;
}

interface Cursor {
  /** Database the page starts in. */
  db: string;
  offset: number;
  /** While listing the knowledge topics (they come first): the topic the page starts at. */
  topics?: number;
}

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString("base64url");
}

function decodeCursor(value: string): Cursor {
  try {
    const cursor = JSON.parse(Buffer.from(value, "base64url").toString("utf8")) as Cursor;
    const topics = cursor.topics === undefined || (Number.isInteger(cursor.topics) && cursor.topics >= 0);
    if (typeof cursor.db === "string" && Number.isInteger(cursor.offset) && cursor.offset >= 0 && topics) return cursor;
  } catch {
    // fall through
  }
  throw invalidRequest("invalid cursor: pass the nextCursor of the previous resources/list answer unchanged");
}

function mimeTypeOf(source: string | null): string {
  return source && /\.(md|markdown|mdx)$/i.test(source) ? "text/markdown" : "text/plain";
}

/** A DocDBError from a resource or completion request as a JSON-RPC error carrying docdb's code. */
function requestError(error: unknown): RequestError {
  if (error instanceof RequestError) return error;
  const failure = toDocDBError(error);
  const rpc =
    failure.code === "NOT_FOUND" ? -32002 : failure.code === "INVALID_REQUEST" ? ErrorCode.InvalidParams : ErrorCode.InternalError;
  return new RequestError(rpc, failure.message, { code: failure.code });
}

function startingWith(values: string[], prefix: string): string[] {
  const lower = prefix.toLowerCase();
  return values.filter((v) => v.toLowerCase().startsWith(lower)).slice(0, MAX_COMPLETIONS);
}

/**
 * A handler schema that lets every `params` through, so the handler itself checks them against
 * `schema` and answers INVALID_REQUEST (the SDK's own parse failure is an internal error without
 * docdb's code).
 */
function loose<T extends z.ZodType>(method: string, schema: T) {
  return {
    wire: z.object({ method: z.literal(method), params: z.optional(z.unknown()) }),
    parse(request: unknown, expected: string): z.output<T> {
      const parsed = schema.safeParse(request);
      if (!parsed.success) throw invalidRequest(`${method} needs params ${expected}: check the request against the MCP schema`);
      return parsed.data;
    },
  };
}

/**
 * Documents as MCP resources (`docdb://{db}/documents/{id}`, listed in pages and readable),
 * collections as a resource template (`docdb://{db}/collections/{collection}`, their status),
 * agent memory of the default database (`knowledge://{topic}` per topic, listed before the
 * documents, and the template `knowledge://{topic}/{query}`), a `search_docdb` prompt, and
 * argument completion for database, collection, document and topic names. The templates are
 * the SDK's ResourceTemplate: its URI template matches read requests and its `complete`
 * callbacks answer `completion/complete`.
 */
export class DocdbResources {
  readonly templates: { name: string; title: string; description: string; mimeType?: string; template: ResourceTemplate }[];
  /** Agent memory of the default database. */
  readonly knowledge: KnowledgeResources;

  constructor(
    private readonly docdb: DocDB,
    private readonly options: DocdbResourcesOptions,
  ) {
    this.knowledge = new KnowledgeResources(docdb, options.defaultDb);
    const db = (value: string) => this.databaseNames(value);
    this.templates = [
      {
        name: "document",
        title: "docdb document",
        description: "A stored document's whole text. Find ids with find_similar_documents, or list the resources.",
        template: new ResourceTemplate(DOCUMENT_TEMPLATE, {
          list: undefined,
          complete: { db, id: (value, context) => this.documentIds(value, context?.arguments?.db) },
        }),
      },
      {
        name: "collection",
        title: "docdb collection",
        description: "A collection's status: its folder, description, files and pending embeddings.",
        mimeType: "application/json",
        template: new ResourceTemplate(COLLECTION_TEMPLATE, {
          list: undefined,
          complete: { db, collection: (value, context) => this.collectionNames(value, context?.arguments?.db) },
        }),
      },
      this.knowledge.entry,
    ];
  }

  /** The same resources as `caller` sees them: other databases do not exist for it. */
  forCaller(caller: Caller): DocdbResources {
    return caller.databases === "*" ? this : new DocdbResources(scopedDocDB(this.docdb, caller), this.options);
  }

  /** Database names starting with `prefix`. */
  async databaseNames(prefix: string): Promise<string[]> {
    return startingWith(await this.docdb.databaseNames(), prefix);
  }

  /** Enabled and disabled collection names of a database starting with `prefix`. */
  async collectionNames(prefix: string, dbName: string | undefined): Promise<string[]> {
    const name = dbName || this.options.defaultDb;
    if (!(await this.docdb.exists(name).catch(() => false))) return [];
    const collections = await (await this.docdb.database(name)).collections.list();
    return startingWith(
      collections.map((c) => c.name),
      prefix,
    );
  }

  /** Ids of the first documents of a database starting with `prefix`. */
  async documentIds(prefix: string, dbName: string | undefined): Promise<string[]> {
    const name = dbName || this.options.defaultDb;
    if (!(await this.docdb.exists(name).catch(() => false))) return [];
    const docs = await (await this.docdb.database(name)).listDocuments({ limit: 1000 });
    return startingWith(
      docs.map((d) => d.doc_id),
      prefix,
    );
  }

  /**
   * One page of resources: the default database's knowledge topics first, then documents,
   * database by database in name order.
   */
  async list(cursor: string | undefined): Promise<{ resources: Resource[]; nextCursor?: string }> {
    const names = await this.docdb.databaseNames();
    const from: Cursor = cursor !== undefined ? decodeCursor(cursor) : { db: names[0] ?? "", offset: 0, topics: 0 };
    const resources: Resource[] = [];
    if (from.topics !== undefined) {
      const topics = await this.knowledge.list();
      const end = from.topics + RESOURCE_PAGE_SIZE;
      resources.push(...topics.slice(from.topics, end));
      if (end < topics.length) return { resources, nextCursor: encodeCursor({ db: from.db, offset: 0, topics: end }) };
    }
    let index = names.findIndex((n) => n >= from.db);
    let offset = names[index] === from.db ? from.offset : 0;
    while (index >= 0 && index < names.length) {
      const name = names[index] as string;
      const want = RESOURCE_PAGE_SIZE - resources.length;
      // One more than needed tells whether this database has more.
      const docs = await (await this.docdb.database(name)).listDocuments({ limit: want + 1, offset });
      for (const doc of docs.slice(0, want)) {
        resources.push({
          uri: `docdb://${name}/documents/${doc.doc_id}`,
          name: doc.title ?? doc.source ?? doc.key ?? doc.doc_id,
          ...(doc.title ? { title: doc.title } : {}),
          description: `${doc.length} characters in database "${name}"${doc.source ? ` from ${doc.source}` : ""}`,
          mimeType: mimeTypeOf(doc.source),
          size: doc.length,
        });
      }
      if (docs.length > want) return { resources, nextCursor: encodeCursor({ db: name, offset: offset + want }) };
      index++;
      offset = 0;
      if (resources.length >= RESOURCE_PAGE_SIZE) {
        return index < names.length ? { resources, nextCursor: encodeCursor({ db: names[index] as string, offset: 0 }) } : { resources };
      }
    }
    return { resources };
  }

  /** The text of `docdb://{db}/documents/{id}`, a collection's status as JSON, or knowledge as Markdown. */
  async read(uri: string): Promise<{ contents: { uri: string; mimeType: string; text: string }[] }> {
    if (isKnowledgeUri(uri)) return this.knowledge.read(uri);
    const [documents, collections] = this.templates.map((t) => t.template.uriTemplate) as [
      ResourceTemplate["uriTemplate"],
      ResourceTemplate["uriTemplate"],
    ];
    const doc = documents.match(uri);
    if (doc) {
      const view = await (await this.docdb.database(String(doc.db))).getDocument(String(doc.id));
      return { contents: [{ uri, mimeType: mimeTypeOf(view.source), text: view.text }] };
    }
    const collection = collections.match(uri);
    if (collection) {
      const db = await this.docdb.database(String(collection.db));
      const [status] = await db.collections.status(String(collection.collection));
      return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(status, null, 2) }] };
    }
    throw new DocDBError(
      "NOT_FOUND",
      `no resource ${quote(uri)}: use ${DOCUMENT_TEMPLATE}, ${COLLECTION_TEMPLATE} or ${KNOWLEDGE_TEMPLATE}`,
    );
  }

  /** Completion values for a template variable or a prompt argument. */
  async complete(
    ref: { type: string; uri?: string; name?: string },
    argument: { name: string; value: string },
    context: Record<string, string> = {},
  ): Promise<string[]> {
    if (ref.type === "ref/resource") {
      const entry = this.templates.find((t) => t.template.uriTemplate.toString() === ref.uri);
      const callback = entry?.template.completeCallback(argument.name);
      return callback ? [...(await callback(argument.value, { arguments: context }))] : [];
    }
    if (ref.type === "ref/prompt" && ref.name === SEARCH_PROMPT) {
      if (argument.name === "db_name") return this.databaseNames(argument.value);
      if (argument.name === "collection") return this.collectionNames(argument.value, context.db_name);
    }
    return [];
  }

  readonly prompt: Prompt = {
    name: SEARCH_PROMPT,
    title: "Search docdb",
    description: "Ask the agent to answer a question from documents stored in docdb",
    arguments: [
      { name: "query", description: "What to find out", required: true },
      { name: "db_name", description: "Database to search (completes to the existing ones)" },
      { name: "collection", description: "Only this collection (completes to the database's collections)" },
    ],
  };

  /** Answers resources/*, prompts/* and completion/complete on `server` (its capabilities must include them). */
  attach(server: Server): void {
    const guard =
      <T>(work: () => Promise<T>) =>
      async () => {
        try {
          return await work();
        } catch (error) {
          throw requestError(error);
        }
      };
    const list = loose("resources/list", ListResourcesRequestSchema);
    server.setRequestHandler(list.wire, (request) => guard(() => this.list(list.parse(request, "{cursor?: string}").params?.cursor))());
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
      resourceTemplates: this.templates.map((t) => ({
        uriTemplate: t.template.uriTemplate.toString(),
        name: t.name,
        title: t.title,
        description: t.description,
        ...(t.mimeType ? { mimeType: t.mimeType } : {}),
      })),
    }));
    const read = loose("resources/read", ReadResourceRequestSchema);
    server.setRequestHandler(read.wire, (request) => guard(() => this.read(read.parse(request, "{uri: string}").params.uri))());
    const complete = loose("completion/complete", CompleteRequestSchema);
    server.setRequestHandler(complete.wire, (request) =>
      guard(async () => {
        const { params } = complete.parse(request, "{ref: {type, uri | name}, argument: {name, value}}");
        const values = await this.complete(params.ref, params.argument, params.context?.arguments ?? {});
        return { completion: { values: values.slice(0, MAX_COMPLETIONS), total: values.length, hasMore: values.length > MAX_COMPLETIONS } };
      })(),
    );
    server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: [this.prompt] }));
    const getPrompt = loose("prompts/get", GetPromptRequestSchema);
    server.setRequestHandler(getPrompt.wire, async (request) => {
      const { params } = getPrompt.parse(request, "{name: string, arguments?: object}");
      if (params.name !== SEARCH_PROMPT) {
        throw invalidRequest(`unknown prompt ${quote(params.name)}: this server has ${SEARCH_PROMPT}`);
      }
      const args = params.arguments ?? {};
      if (!args.query) throw invalidRequest(`${SEARCH_PROMPT} needs a query argument`);
      const scope = [
        args.db_name ? `db_name "${args.db_name}"` : "",
        args.collection ? `the filter {"collection":"${args.collection}"}` : "",
      ].filter(Boolean);
      return {
        description: `Search docdb for: ${args.query}`,
        messages: [
          {
            role: "user",
            content: {
              type: "text",
              text:
                `Answer from the documents in docdb: ${args.query}\n\n` +
                `Call find_similar_documents${scope.length > 0 ? ` with ${scope.join(" and ")}` : ""}; ` +
                "read more of a passage with get_document and its start/end, and cite the doc_id of what you use.",
            },
          },
        ],
      };
    });
  }
}
