import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestParamsSchema,
  CreateMessageResultSchema,
  ErrorCode,
  type JSONRPCRequest,
  type ServerResult,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { type AuditSink, auditEntryFor } from "./auth/audit.js";
import { type Caller, OPEN_CALLER, seesDatabase } from "./auth/caller.js";
import { type CallerScope, runAs } from "./auth/current.js";
import { checkToolAccess } from "./auth/policy.js";
import { COLLECTION_TOOL_PREFIX, LIST_COLLECTIONS_TOOL } from "./collections/names.js";
import type { ToolRegistry } from "./registry.js";
import { invalidRequest, quote } from "./request-error.js";
import type { DocdbResources } from "./resources.js";
import { toolErrorResult } from "./tool-result.js";

export const SERVER_NAME = "docdb";
export const SERVER_VERSION = "0.1.0";

const INSTRUCTIONS = [
  "docdb is a local document database. Store text with insert_document, then find passages with",
  "find_similar_documents (hybrid meaning + keyword search; Japanese and English). Results carry doc_id",
  "and character offsets; get_document returns the whole text or just a range (start/end or line_start/line_end).",
  "Answers stay within max_chars characters (default 6000); include_text false returns references only. Databases are named; omit db_name for the",
  "default one. Failed calls return isError with {error: {code, message}}: read the message, fix the call.",
  "Memory: after solving a question, store it with store_qa {question, answer, topic}; before solving one, try query_qa",
  "{question, context}. merge_knowledge merges similar answers into knowledge (through your client's sampling);",
  "knowledge://{topic}/{query} resources serve it.",
].join(" ");

/** How long a sampling request (the client's LLM writing a merge) may take by default (DOCDB_SAMPLING_TIMEOUT_MS). */
const SAMPLING_TIMEOUT_MS = 60_000;

export interface CreateServerOptions {
  name?: string;
  version?: string;
  instructions?: string;
  /**
   * Documents and agent memory (knowledge://) as resources, the search prompt and argument
   * completion; without it, tools only.
   */
  resources?: DocdbResources;
  /** Who this connection is (HTTP: from its bearer token); default the local user, admin. */
  caller?: Caller;
  /** From where: the remote address, or "stdio" (the default). */
  origin?: string;
  /** Where successful writes are recorded (the audit trail); none: not recorded. */
  audit?: AuditSink;
  /** The database of tool calls without db_name (collection tools work in it). Default "vectors". */
  defaultDb?: string;
  /** How long the client has to answer a sampling request, in ms (default 60,000). */
  samplingTimeoutMs?: number;
}

/** Collection tools work in the default database: hidden from a caller who may not see it. */
export function visibleTool(name: string, caller: Caller, defaultDb: string): boolean {
  if (caller.databases === "*" || seesDatabase(caller, defaultDb)) return true;
  return name !== LIST_COLLECTIONS_TOOL && !name.startsWith(COLLECTION_TOOL_PREFIX);
}

/**
 * The SDK's JSON Schema validator (Ajv), made on first use: the server only needs it to check
 * what a client answers to elicitation, which docdb does not ask for, and making it costs a
 * few milliseconds of every start.
 */
function lazyValidator(): jsonSchemaValidator {
  let ajv: AjvJsonSchemaValidator | undefined;
  return {
    getValidator: (schema) => {
      ajv ??= new AjvJsonSchemaValidator();
      return ajv.getValidator(schema);
    },
  };
}

/**
 * One MCP server (one connection) offering the registry's tools. It is the SDK's Server;
 * only tools/list and tools/call are ours. They go through `fallbackRequestHandler`
 * rather than `setRequestHandler` because the SDK's typed handlers reject a malformed
 * tools/call before we see it, as a JSON-RPC error without docdb's `data.code` (and its
 * McpServer turns unknown tools and schema violations into tool results). Everything else
 * (initialize, ping, framing, transports) is the SDK's.
 *
 * The server announces `notifications/tools/list_changed` whenever the registry changes,
 * until it is closed.
 */
export function createServer(registry: ToolRegistry, options: CreateServerOptions = {}): Server {
  const server = new Server(
    { name: options.name ?? SERVER_NAME, version: options.version ?? SERVER_VERSION },
    {
      capabilities: {
        tools: { listChanged: true },
        ...(options.resources ? { resources: {}, prompts: {}, completions: {} } : {}),
      },
      instructions: options.instructions ?? INSTRUCTIONS,
      jsonSchemaValidator: lazyValidator(),
    },
  );
  const scope: CallerScope = { caller: options.caller ?? OPEN_CALLER, origin: options.origin ?? "stdio" };
  const defaultDb = options.defaultDb ?? "vectors";
  options.resources?.forCaller(scope.caller).attach(server);
  server.fallbackRequestHandler = async (request: JSONRPCRequest, extra): Promise<ServerResult> => {
    switch (request.method) {
      case "tools/list":
        return { tools: registry.list().filter((tool) => visibleTool(tool.name, scope.caller, defaultDb)) };
      case "tools/call": {
        const params = CallToolRequestParamsSchema.safeParse(request.params);
        if (!params.success) {
          throw invalidRequest("tools/call needs params {name: string, arguments?: object}: check the request against the MCP schema");
        }
        const { name, arguments: args } = params.data;
        return runAs(scope, async () => {
          try {
            if (registry.has(name)) checkToolAccess(scope.caller, name);
          } catch (error) {
            return toolErrorResult(error, name);
          }
          const result = await registry.call(name, args, {
            signal: extra.signal,
            sampling: {
              available: () => server.getClientCapabilities()?.sampling !== undefined,
              // Sent as part of this request, so over HTTP it travels on the call's own response stream.
              createMessage: (samplingParams) =>
                extra.sendRequest({ method: "sampling/createMessage", params: samplingParams }, CreateMessageResultSchema, {
                  signal: extra.signal,
                  // A hard limit: progress notifications do not extend it.
                  timeout: options.samplingTimeoutMs ?? SAMPLING_TIMEOUT_MS,
                }),
            },
          });
          const entry = options.audit && auditEntryFor(name, args, result, defaultDb);
          // The write is done: an audit trail that cannot be written is reported, never turned into a failed call.
          if (entry)
            await options
              .audit?.(scope, entry)
              .catch((error: unknown) => process.emitWarning(`audit entry not recorded: ${String(error)}`));
          return result;
        });
      }
      default:
        throw invalidRequest(
          `unknown method ${quote(request.method)}: this server answers initialize, ping, tools/*${options.resources ? ", resources/*, prompts/* and completion/complete" : ""}`,
          {},
          ErrorCode.MethodNotFound,
        );
    }
  };
  const unsubscribe = registry.onChange(() => {
    // Before initialize (or after close) there is nobody to tell: the client lists tools once initialized.
    if (server.transport && server.getClientCapabilities()) server.sendToolListChanged().catch(() => undefined);
  });
  server.onclose = unsubscribe;
  return server;
}
