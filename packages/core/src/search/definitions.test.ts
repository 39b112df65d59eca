import { describe, expect, it } from "vitest";
import { definedSymbol, definitionsFirst, namedSymbol } from "./definitions.js";

describe("definitions first", () => {
  it("recognises a query that is one identifier or symbol path", () => {
    expect(namedSymbol("  migrate ")).toBe("migrate");
    expect(namedSymbol("PaymentService.retryCharge")).toBe("paymentservice.retrycharge");
    expect(namedSymbol("std::vector")).toBe("std.vector");
    expect(namedSymbol("_private $el Ünïcode")).toBeUndefined();
    expect(namedSymbol("$el")).toBe("$el");
    for (const query of ["where do we retry payments", "a.b.", "1abc", "x-y", ""]) expect(namedSymbol(query)).toBeUndefined();
  });

  it("finds the declaration of a name in a chunk: its symbol, or one packed with it, by whole parts", () => {
    const chunk = { symbol: "Invoice", symbolKind: "class", symbols: [] };
    expect(definedSymbol(chunk, "invoice")).toEqual({ symbol: "Invoice", kind: "class" });
    const packed = {
      symbol: "Invoice",
      symbolKind: "class",
      symbols: [
        { symbol: "Invoice", kind: "class" },
        { symbol: "Invoice.tax", kind: "method" },
      ],
    };
    expect(definedSymbol(packed, "tax")).toEqual({ symbol: "Invoice.tax", kind: "method" });
    expect(definedSymbol(packed, "invoice.tax")).toEqual({ symbol: "Invoice.tax", kind: "method" });
    // "ax" is not a part of "Invoice.tax".
    expect(definedSymbol(packed, "ax")).toBeUndefined();
    expect(definedSymbol({ symbol: null, symbolKind: null, symbols: [] }, "tax")).toBeUndefined();
  });

  it("moves definitions first, keeping both orders, with scores still descending", () => {
    const hits = [
      { chunkId: "use1", score: 9 },
      { chunkId: "def1", score: 5 },
      { chunkId: "use2", score: 4 },
      { chunkId: "def2", score: 2 },
    ];
    const ordered = definitionsFirst(hits, [hits[1]!, hits[3]!]);
    expect(ordered.map((h) => h.chunkId)).toEqual(["def1", "def2", "use1", "use2"]);
    const scores = ordered.map((h) => h.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(definitionsFirst(hits, [])).toBe(hits);
  });
});
