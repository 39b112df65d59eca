import { ERROR_CODES } from "@docdb/core";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod/v4";

type JsonSchemaObject = Record<string, unknown> & { properties?: Record<string, unknown>; required?: string[] };

/** Zod writes the safe-integer range onto every integer; it says nothing to a model, so leave it out. */
function dropSafeIntegerBounds(jsonSchema: Record<string, unknown>): void {
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
}

let failureSchema: JsonSchemaObject | undefined;

/** The structured content of every failed tool call (see toolErrorResult), as JSON Schema; made once, when first needed. */
function failureJsonSchema(): JsonSchemaObject {
  failureSchema ??= z.toJSONSchema(
    z.object({
      error: z.object({
        code: z.string().describe(`${ERROR_CODES.slice(0, -1).join(", ")} or ${ERROR_CODES.at(-1)}`),
        message: z.string().describe("What went wrong and what to do about it"),
        details: z
          .record(z.string(), z.unknown())
          .optional()
          .describe("Structured detail some errors carry, e.g. the candidate groups of SAMPLING_UNAVAILABLE"),
      }),
    }),
    { target: "draft-7", io: "output" },
  ) as JsonSchemaObject;
  return failureSchema;
}

/** A tool's arguments as the JSON Schema (draft-07) clients show to models. */
export function inputJsonSchema(schema: z.ZodObject): Tool["inputSchema"] {
  return z.toJSONSchema(schema, {
    target: "draft-7",
    io: "input",
    override: ({ jsonSchema }) => dropSafeIntegerBounds(jsonSchema),
  }) as Tool["inputSchema"];
}

/**
 * A tool's result schema, widened to admit the `{error: {code, message}}` content of failed
 * calls. The SDK client (1.x) validates structuredContent against outputSchema even when
 * `isError` is true (modelcontextprotocol/typescript-sdk#1943), so without this every error
 * result would surface as a schema violation instead of the error. The success fields stay
 * listed under `properties`; `anyOf` says which set is required.
 */
export function outputJsonSchema(schema: z.ZodObject): NonNullable<Tool["outputSchema"]> {
  const success = z.toJSONSchema(schema, {
    target: "draft-7",
    io: "output",
    // Results may gain fields (core adds them over time); clients must not reject those.
    override: ({ jsonSchema }) => {
      if (jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
      dropSafeIntegerBounds(jsonSchema);
    },
  }) as JsonSchemaObject;
  const failure = failureJsonSchema();
  const { required = [], ...rest } = success;
  return {
    ...rest,
    type: "object",
    properties: { ...success.properties, error: failure.properties?.error as object },
    anyOf: [{ required }, { required: ["error"] }],
  };
}
