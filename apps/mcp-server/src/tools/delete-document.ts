import { z } from "zod/v4";
import { defineTool } from "../tool.js";
import { databaseFor, dbNameArgument, docIdArgument, plural, type ToolsContext } from "./context.js";

export function deleteDocumentTool(context: ToolsContext) {
  const { defaultDb } = context;
  return defineTool({
    name: "delete_document",
    title: "Delete a document",
    description: "Delete a document with its chunks, vectors and keyword index entries. It cannot be undone.",
    input: z.strictObject({ doc_id: docIdArgument, db_name: dbNameArgument(defaultDb) }),
    output: z.object({ deleted_chunks: z.number().int() }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: async ({ doc_id, db_name }) => (await databaseFor(context, db_name)).deleteDocument(doc_id),
    render: ({ deleted_chunks }, { doc_id, db_name }) =>
      `Deleted document ${doc_id} and its ${plural(deleted_chunks, "chunk")} from "${db_name ?? defaultDb}".`,
  });
}
