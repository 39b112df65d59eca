import { z } from "zod/v4";
import { currentCaller } from "../auth/current.js";
import { scopedDocDB } from "../auth/scope.js";
import { defineTool } from "../tool.js";
import { databaseStatusSchema, describeModel, plural, type ToolsContext } from "./context.js";

export function listDatabasesTool({ docdb }: ToolsContext) {
  return defineTool({
    name: "list_databases",
    title: "List databases",
    description: "List the databases with their document and chunk counts, pending embeddings and embedding model.",
    input: z.strictObject({}),
    output: z.object({ databases: z.array(databaseStatusSchema) }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: async () => ({ databases: await scopedDocDB(docdb, currentCaller()).listDatabases() }),
    render: ({ databases }) =>
      databases.length === 0
        ? "No databases yet: create_database makes one (insert_document makes the default one)."
        : databases
            .map(
              (d) =>
                `${d.name}: ${plural(d.documents, "document")}, ${plural(d.chunks, "chunk")} (${d.pending} pending), model ${describeModel(d.model)}`,
            )
            .join("\n"),
  });
}
