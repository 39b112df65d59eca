import type { DocDB } from "@docdb/core";
import { z } from "zod/v4";
import { currentCaller } from "../auth/current.js";
import { scopedDocDB } from "../auth/scope.js";
import { defineTool } from "../tool.js";
import { collectionToolName, LIST_COLLECTIONS_TOOL } from "./names.js";

/** `list_collections`: what collections exist, which search tool serves each, how full they are. */
export function listCollectionsTool(docdb: DocDB, dbName: string) {
  return defineTool({
    name: LIST_COLLECTIONS_TOOL,
    title: "List collections",
    description:
      "List the document collections (folders of docs or code imported into docdb), with their descriptions and the " +
      "search_<name> tool that searches each enabled one.",
    input: z.strictObject({}),
    output: z.object({
      collections: z.array(
        z.object({
          name: z.string(),
          description: z.string(),
          enabled: z.boolean(),
          tool: z.string().nullable().describe("The search tool for this collection; null while it is disabled"),
          documents: z.number().int(),
          chunks: z.number().int(),
          pending: z.number().int().describe("Chunks waiting for an embedding (still found by keywords)"),
          last_import_at: z.string().nullable(),
        }),
      ),
    }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: async () => ({
      collections: (await (await scopedDocDB(docdb, currentCaller()).database(dbName)).collections.status()).map((c) => ({
        name: c.name,
        description: c.description,
        enabled: c.enabled,
        tool: c.enabled ? collectionToolName(c.name) : null,
        documents: c.documents,
        chunks: c.chunks,
        pending: c.pending,
        last_import_at: c.last_import_at,
      })),
    }),
    render: ({ collections }) =>
      collections.length === 0
        ? "No collections."
        : collections
            .map(
              (c) =>
                `${c.name}${c.enabled ? ` (tool ${c.tool})` : " (disabled)"}: ${c.documents} documents, ${c.chunks} chunks — ${c.description}`,
            )
            .join("\n"),
  });
}
