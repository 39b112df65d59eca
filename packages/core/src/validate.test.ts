import { describe, expect, it } from "vitest";
import { MAX_METADATA_DEPTH, validateMetadata } from "./validate.js";

function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

describe("validateMetadata", () => {
  it(`accepts nesting up to ${MAX_METADATA_DEPTH} levels and refuses deeper with INVALID_REQUEST`, () => {
    expect(validateMetadata(nested(MAX_METADATA_DEPTH))).toEqual(nested(MAX_METADATA_DEPTH));
    expect(() => validateMetadata(nested(MAX_METADATA_DEPTH + 1))).toThrow(
      expect.objectContaining({ code: "INVALID_REQUEST", message: expect.stringMatching(/nested more than/) }),
    );
    // Thousands of levels (past SQLite's JSON limit) are a clear error, not a failed CHECK constraint.
    expect(() => validateMetadata(nested(3000))).toThrow(expect.objectContaining({ code: "INVALID_REQUEST" }));
  });

  it("does not count brackets inside strings", () => {
    const metadata = { note: "{".repeat(100) + '[[[\\"]]]' };
    expect(validateMetadata(metadata)).toEqual(metadata);
  });
});
