/**
 * Messages no well-behaved client sends. Each says what the server must do with it:
 * `ignored` (blank lines, stray responses and notifications: nothing to answer), `rejected`
 * (not JSON-RPC: a -32700 or -32600 error with id null, as no id can be read from it),
 * `invalid` (a JSON-RPC error whose data.code is INVALID_REQUEST), `tool-error` (an isError
 * tool result with INVALID_REQUEST), or `answered` (any answer; the point is that one comes).
 */
export interface Hostile {
  id?: number;
  line: string;
  expect: "ignored" | "rejected" | "invalid" | "tool-error" | "answered";
}

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 2246822507) + 0x9e3779b9) >>> 0;
    return state / 2 ** 32;
  };
}

const WRONG_VALUES: unknown[] = [123, -1.5, true, null, [], ["a"], {}, { $gt: "" }, "", "x".repeat(300)];

/** Each tool's arguments and the JSON types each accepts. */
const ARGUMENT_TYPES: Record<string, Record<string, string>> = {
  create_database: { db_name: "string" },
  list_databases: {},
  insert_document: { text: "string", metadata: "object", db_name: "string", title: "string" },
  find_similar_documents: { text: "string", top_k: "integer", db_name: "string", mode: "mode", filter: "object", threshold: "number" },
  get_document: { doc_id: "string", db_name: "string" },
  delete_document: { doc_id: "string", db_name: "string" },
  status: { db_name: "string" },
  store_qa: { question: "string", answer: "string", topic: "string", topic_description: "string", db_name: "string" },
  query_qa: { question: "string", context: "string", top_k: "integer", db_name: "string" },
  merge_knowledge: { topic: "string", threshold: "number", db_name: "string" },
  store_knowledge: { text: "string", topic: "string", source_qa_ids: "array", db_name: "string" },
  list_topics: { db_name: "string" },
};

/** The required arguments of each tool, with valid values. */
const REQUIRED: Record<string, Record<string, unknown>> = {
  create_database: { db_name: "ok" },
  insert_document: { text: "ok" },
  find_similar_documents: { text: "ok" },
  get_document: { doc_id: "x" },
  delete_document: { doc_id: "x" },
  store_qa: { question: "q", answer: "a", topic: "t" },
  query_qa: { question: "q" },
  store_knowledge: { text: "k", topic: "t" },
};

function fits(type: string, value: unknown): boolean {
  if (type === "string") return typeof value === "string";
  if (type === "object") return typeof value === "object" && value !== null && !Array.isArray(value);
  if (type === "integer") return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 100;
  if (type === "number") return typeof value === "number";
  if (type === "array") return Array.isArray(value) && value.every((v) => typeof v === "string");
  return value === "keyword";
}

export function hostileMessages(): Hostile[] {
  const next = random(20240611);
  const out: Hostile[] = [];
  let id = 1000;
  const request = (method: string, params: unknown, expect: Hostile["expect"]) => {
    id += 1;
    out.push({ id, line: JSON.stringify({ jsonrpc: "2.0", id, method, ...(params !== undefined ? { params } : {}) }), expect });
  };
  const call = (name: unknown, args: unknown, expect: Hostile["expect"]) => request("tools/call", { name, arguments: args }, expect);

  // Not JSON.
  for (const line of [
    "{",
    "}",
    "[",
    '{"jsonrpc":',
    "nul",
    "tru",
    "'single'",
    '{"a":1}}',
    "💥",
    '"unterminated',
    "<html></html>",
    "",
    "   ",
  ]) {
    out.push({ line, expect: line.trim() === "" ? "ignored" : "rejected" });
  }
  for (let i = 0; i < 40; i++) {
    const length = 1 + Math.floor(next() * 200);
    let line = "";
    for (let j = 0; j < length; j++) line += String.fromCharCode(1 + Math.floor(next() * 0x2fff)).replace(/[\n\r]/g, "?");
    out.push({ line, expect: line.trim() === "" ? "ignored" : "rejected" });
  }
  // JSON, but not JSON-RPC.
  for (const value of [1, "str", null, true, [], [1, 2], {}]) {
    out.push({ line: JSON.stringify(value), expect: "rejected" });
  }
  // An id that can be read is answered with it (-32600).
  out.push({ id: 2, line: JSON.stringify({ jsonrpc: "1.0", id: 2, method: "tools/list" }), expect: "invalid" });
  out.push({ id: 3, line: JSON.stringify({ id: 3, method: "tools/list" }), expect: "invalid" });
  out.push({ line: JSON.stringify({ jsonrpc: "2.0", id: { x: 1 }, method: "tools/list" }), expect: "rejected" });
  out.push({ line: JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "tools/list" }]), expect: "rejected" });
  // Stray responses and notifications: nothing to answer.
  out.push({ line: JSON.stringify({ jsonrpc: "2.0", id: 987654, result: {} }), expect: "ignored" });
  out.push({ line: JSON.stringify({ jsonrpc: "2.0", id: 987655, error: { code: 1, message: "x" } }), expect: "ignored" });
  out.push({ line: JSON.stringify({ jsonrpc: "2.0", method: "notifications/whatever", params: { a: 1 } }), expect: "ignored" });
  out.push({
    line: JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 424242 } }),
    expect: "ignored",
  });

  // Unknown methods.
  // (resources/*, prompts/* and completion/complete are served: see agent-answers.test.ts.)
  const methods = [
    "foo",
    "tools/destroy",
    "resources/subscribe",
    "logging/setLevel",
    "__proto__",
    "constructor",
    "toString",
    "hasOwnProperty",
  ];
  methods.push("", "x".repeat(100_000), "tools/call/extra", "ツール/一覧", "sampling/createMessage", "completion/completeAll");
  for (let i = 0; i < 36; i++) methods.push(`random/${Math.floor(next() * 1e9)}`);
  for (const method of methods) request(method, undefined, "invalid");
  // Resource requests whose params break the MCP schema.
  for (const params of [{}, { uri: 5 }]) request("resources/read", params, "invalid");
  request("completion/complete", { ref: { type: "ref/resource" } }, "invalid");
  for (const params of [{}, { name: 5 }]) request("prompts/get", params, "invalid");
  request("resources/list", { cursor: 5 }, "invalid");

  // params that are not an object make the message invalid JSON-RPC for MCP: dropped like bad JSON.
  for (const params of [null, "x", [], 5]) request("tools/call", params, "invalid");
  // tools/call envelopes that break the MCP schema.
  for (const params of [undefined, { name: 1 }, { name: null }, { name: {} }, { arguments: {} }]) {
    request("tools/call", params, "invalid");
  }
  for (const args of ["x", [1], 5, true, null]) call("status", args, "invalid");
  for (const name of ["", "nope", "x".repeat(50_000), "../insert_document", "insert_document ", "INSERT_DOCUMENT", "__proto__"]) {
    call(name, {}, "invalid");
  }

  // Every argument of every tool with every wrong type; unknown and missing arguments.
  for (const [tool, types] of Object.entries(ARGUMENT_TYPES)) {
    const base: Record<string, unknown> = { ...REQUIRED[tool] };
    for (const [argument, type] of Object.entries(types)) {
      for (const value of WRONG_VALUES) {
        if (fits(type, value)) continue;
        call(tool, { ...base, [argument]: value }, "invalid");
      }
    }
    call(tool, { ...base, unexpected: 1 }, "invalid");
    call(tool, { ...base, ["k".repeat(10_000)]: 1 }, "invalid");
    if (Object.keys(base).length > 0) call(tool, {}, "invalid");
  }

  // Right types, hostile content: core refuses these as tool errors.
  call("insert_document", { text: "長".repeat(1_000_000) }, "tool-error");
  call("insert_document", { text: "ok", db_name: "d".repeat(1_000_000) }, "tool-error");
  call("insert_document", { text: "ok", db_name: "../../tmp/x" }, "tool-error");
  call("insert_document", { text: "ok", title: "t".repeat(5000) }, "tool-error");
  call("insert_document", { text: "\u0000\u0000" }, "answered");
  call("find_similar_documents", { text: "q".repeat(200_000) }, "tool-error");
  call("store_qa", { question: "q", answer: "a".repeat(30_000), topic: "t" }, "tool-error");
  call("store_qa", { question: "q", answer: "a", topic: "?!…" }, "tool-error");
  call("store_knowledge", { text: "k", topic: "t".repeat(5000) }, "tool-error");
  const manyKeys: Record<string, number> = {};
  for (let i = 0; i < 20_000; i++) manyKeys[`key${i}`] = i;
  call("insert_document", { text: "ok", metadata: manyKeys }, "tool-error");

  let deep: unknown = 1;
  for (let i = 0; i < 3000; i++) deep = { a: deep };
  call("insert_document", { text: "ok", metadata: { deep } }, "tool-error");

  // Right types, odd content: whatever the answer, there must be one.
  call("insert_document", { text: "ok", metadata: JSON.parse('{"__proto__": {"polluted": true}}') }, "answered");
  call("insert_document", { text: "lone surrogate \ud800 and NUL \u0000 in text" }, "answered");
  call("find_similar_documents", { text: "x", filter: { "a') OR 1=1 --": 1 } }, "tool-error");
  call("find_similar_documents", { text: "x", filter: { "$.x[0]": 1, "": 2 } }, "tool-error");
  call("find_similar_documents", { text: "x", filter: { $gt: "", $where: "1" } }, "tool-error");
  call("find_similar_documents", { text: "x", filter: { lang: { nested: [1, 2, { deep: true }] } } }, "tool-error");
  call("find_similar_documents", { text: '" OR "" NEAR( * ^ :: )', mode: "keyword" }, "answered");
  call("find_similar_documents", { text: "x", threshold: 1e308 }, "answered");
  call("get_document", { doc_id: "' OR 1=1 --" }, "answered");
  call("delete_document", { doc_id: "%" }, "answered");
  return out;
}
