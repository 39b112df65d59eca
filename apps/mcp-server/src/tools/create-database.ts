import { DocDBError } from "@docdb/core";
import { z } from "zod/v4";
import { seesDatabase } from "../auth/caller.js";
import { currentCaller } from "../auth/current.js";
import { defineTool } from "../tool.js";
import type { ToolsContext } from "./context.js";

export function createDatabaseTool({ docdb }: ToolsContext) {
  return defineTool({
    name: "create_database",
    title: "Create a database",
    description:
      "Create a named database (one SQLite file). Creating one that already exists succeeds and changes nothing. " +
      "Writing tools (insert_document, store_qa, store_knowledge) create only the default database; any other db_name must be created here first.",
    input: z.strictObject({
      db_name: z.string().describe('Database name: 1-64 letters, digits, "_" or "-" (no paths)'),
    }),
    output: z.object({
      success: z.boolean(),
      location: z.string().describe("Where the database lives: a SQLite file, or host/database/schema on PostgreSQL"),
      created: z.boolean().describe("False when the database already existed"),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: ({ db_name }) => {
      const caller = currentCaller();
      if (!seesDatabase(caller, db_name)) {
        throw new DocDBError("FORBIDDEN", `"${caller.name}" may use only the databases it was given; it cannot create "${db_name}"`);
      }
      return docdb.createDatabase(db_name);
    },
    render: (result, { db_name }) =>
      result.created
        ? `Created database "${db_name}" at ${result.location}.`
        : `Database "${db_name}" already exists at ${result.location}.`,
  });
}
