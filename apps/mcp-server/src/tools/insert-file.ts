// insert_file (a document handed over as base64: PDF, DOCX, PPTX, spreadsheets, HTML…) and
// insert_url (a web page or PDF fetched by the server, off unless the server allows it).
import { DocDBError, EXTRACT_FORMATS, type InsertResult } from "@docdb/core";
import { z } from "zod/v4";
import { defineTool } from "../tool.js";
import { databaseFor, dbNameArgument, plural, type ToolsContext } from "./context.js";

/**
 * Largest file insert_file takes, decoded: 5 MiB. Its base64 is a third longer and must fit one
 * message (8 MiB on stdio; an HTTP body is 4 MiB, so about 3 MiB there).
 */
export const MAX_INSERT_FILE_BYTES = 5 * 1024 * 1024;

const insertOutput = z.object({
  doc_id: z.string(),
  format: z.string().optional().describe("The format the text was extracted from (pdf, docx…); absent for plain text"),
  chunk_count: z.number().int(),
  replaced: z.boolean().describe("True when a document with the same key was replaced"),
  reused_vectors: z.number().int(),
  embedded: z.boolean().describe("False when the chunks wait for an embedding model; keyword search finds them meanwhile"),
  warnings: z.array(z.string()),
});

const common = (defaultDb: string) => ({
  db_name: dbNameArgument(defaultDb),
  title: z.string().optional().describe("A title; default the one the file gives itself (PDF info, DOCX properties, HTML <title>)"),
  metadata: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("A JSON object stored with the document, over what the file says (author, created…, format)"),
  key: z.string().optional().describe("Your own unique key: storing again under it replaces that document (same doc_id)"),
  type: z
    .enum(EXTRACT_FORMATS as unknown as [string, ...string[]])
    .optional()
    .describe("The document format, when the name or media type does not say it"),
});

function render(result: InsertResult, dbName: string): string {
  return [
    `${result.replaced ? "Replaced" : "Stored"} document ${result.doc_id}${result.format ? ` (${result.format})` : ""} in "${dbName}" as ${plural(result.chunk_count, "chunk")}, ${
      result.embedded ? "embedded" : "pending embedding"
    }.`,
    ...result.warnings.map((w) => `Warning: ${w}`),
  ].join("\n");
}

/** The bytes of a base64 string, refusing malformed text and anything over the cap before decoding it. */
export function decodeBase64(content: string): Buffer {
  const clean = content.replace(/\s+/g, "");
  const size = Math.floor((clean.length * 3) / 4) - (clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0);
  if (size > MAX_INSERT_FILE_BYTES) {
    throw new DocDBError(
      "INVALID_REQUEST",
      `the file is about ${size} bytes, over insert_file's limit of ${MAX_INSERT_FILE_BYTES} bytes: split it, or import its folder with the docdb CLI`,
    );
  }
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(clean) || clean.length % 4 === 1) {
    throw new DocDBError("INVALID_REQUEST", "content_base64 is not base64 (A-Z, a-z, 0-9, + and /, padded with =)");
  }
  return Buffer.from(clean, "base64");
}

export function insertFileTool(context: ToolsContext) {
  const { defaultDb } = context;
  return defineTool({
    name: "insert_file",
    title: "Insert a file",
    description:
      "Store a file you have (e.g. one you fetched or were given) as a document: PDF, DOCX, PPTX, XLSX/ODS/CSV/TSV, HTML, EPUB, RTF or EML " +
      "is extracted to text (headings, lists, tables as rows), its chunks keeping their page, slide or sheet and row; other files are stored as UTF-8 text. " +
      `Give the bytes as base64 (at most ${MAX_INSERT_FILE_BYTES / 1024 / 1024} MiB decoded) and the file name or media type. ` +
      'A file docdb cannot read fails with the reason (encrypted, "no text layer — OCR it first", corrupt).',
    input: z.strictObject({
      content_base64: z.string().describe("The file's bytes, base64-encoded"),
      name: z.string().optional().describe('The file name, e.g. "report.pdf": its extension names the format'),
      media_type: z.string().optional().describe('The media type, e.g. "application/pdf", when there is no name'),
      ...common(defaultDb),
    }),
    output: insertOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: async ({ content_base64, name, media_type, db_name, title, metadata, key, type }) => {
      if (name === undefined && media_type === undefined && type === undefined) {
        throw new DocDBError("INVALID_REQUEST", 'give the file\'s name (e.g. "report.pdf"), its media_type or its type');
      }
      const bytes = decodeBase64(content_base64);
      const db = await databaseFor(context, db_name, { write: true });
      return db.insertBytes({ bytes, name, media_type, type, title, metadata, key, source: name });
    },
    render: (result, { db_name }) => render(result, db_name ?? defaultDb),
  });
}

export function insertUrlTool(context: ToolsContext) {
  const { defaultDb } = context;
  return defineTool({
    name: "insert_url",
    title: "Insert a web page",
    description:
      "Fetch a web page (HTML: its main text, without navigation) or a PDF by http(s) URL and store it, the URL as its source and key, so " +
      "inserting it again updates it. Off unless the server was started with --allow-fetch (or DOCDB_MCP_ALLOW_FETCH=1); it never reaches " +
      "loopback, link-local or private addresses unless the server also allows that. Fetches are bounded in time, size and redirects.",
    input: z.strictObject({
      url: z.string().describe("An http or https URL"),
      ...common(defaultDb),
    }),
    output: insertOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    run: async ({ url, db_name, title, metadata, key, type }) => {
      const policy = context.fetch ?? { allow: false, allowPrivate: false };
      if (!policy.allow) {
        throw new DocDBError(
          "INVALID_REQUEST",
          "fetching URLs is off on this server: its operator can start it with --allow-fetch (or DOCDB_MCP_ALLOW_FETCH=1); meanwhile fetch the page yourself and hand it to insert_file",
        );
      }
      const db = await databaseFor(context, db_name, { write: true });
      return db.insertUrl(url, { title, metadata, key, type, allow_private: policy.allowPrivate });
    },
    render: (result, { db_name }) => render(result, db_name ?? defaultDb),
  });
}
