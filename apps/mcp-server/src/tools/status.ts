import { z } from "zod/v4";
import { defineTool } from "../tool.js";
import { databaseFor, databaseStatusSchema, dbNameArgument, describeModel, modelSchema, plural, type ToolsContext } from "./context.js";

export function statusTool(context: ToolsContext) {
  const { docdb, defaultDb } = context;
  return defineTool({
    name: "status",
    title: "Database status",
    description:
      "Counts for one database (documents, chunks, embedded and pending chunks, vectors reused when documents were replaced), the model its vectors come from, " +
      "and the model this server embeds with (null: none configured, new chunks stay pending).",
    input: z.strictObject({ db_name: dbNameArgument(defaultDb) }),
    output: databaseStatusSchema.extend({
      server_model: modelSchema.describe("The model this server embeds new documents and queries with; null when none is configured"),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: async ({ db_name }) => {
      const model = docdb.embedding;
      return {
        ...(await (await databaseFor(context, db_name)).status()),
        server_model: model ? { provider: model.provider, model: model.modelId, dimensions: model.dimensions } : null,
      };
    },
    render: (s) =>
      [
        `Database "${s.name}" (${s.engine}) at ${s.location}`,
        `${plural(s.documents, "document")}, ${plural(s.chunks, "chunk")}: ${s.embedded} embedded, ${s.pending} pending` +
          (s.reused_vectors > 0 ? `; ${plural(s.reused_vectors, "vector")} reused from replaced documents (not embedded again)` : ""),
        `Vectors: ${describeModel(s.model)}; this server embeds with ${s.server_model ? describeModel(s.server_model) : "no model (keyword search only)"}`,
        ...(s.healing && s.healing.state !== "off"
          ? [
              `Background embedding: ${s.healing.state}${s.healing.next_attempt_at ? `, next attempt ${s.healing.next_attempt_at}` : ""}${s.healing.last_error ? ` (last error: ${s.healing.last_error})` : ""}`,
            ]
          : []),
      ].join("\n"),
  });
}
