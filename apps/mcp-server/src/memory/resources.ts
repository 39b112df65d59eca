import { type DocDB, DocDBError, type MemoryHit, toDocDBError } from "@docdb/core";
import type { ReadResourceResult, Resource, ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import { invalidRequest, quote, RequestError } from "../request-error.js";
import type { ResourceProvider } from "../resources.js";

export const KNOWLEDGE_SCHEME = "knowledge://";
export const KNOWLEDGE_TEMPLATE = "knowledge://{topic}/{query}";
/** JSON-RPC code MCP uses for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

/** `knowledge://Deploy` for a topic, `knowledge://Deploy/roll%20back` for a query in it. */
export function knowledgeUri(topic: string, query?: string): string {
  return `${KNOWLEDGE_SCHEME}${encodeURIComponent(topic)}${query !== undefined ? `/${encodeURIComponent(query)}` : ""}`;
}

function parseUri(uri: string): { topic: string; query?: string } {
  if (!uri.startsWith(KNOWLEDGE_SCHEME)) {
    throw new RequestError(RESOURCE_NOT_FOUND, `unknown resource ${quote(uri)}: this server serves ${KNOWLEDGE_TEMPLATE}`, {
      code: "NOT_FOUND",
      uri,
    });
  }
  const rest = uri.slice(KNOWLEDGE_SCHEME.length);
  const slash = rest.indexOf("/");
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part);
    } catch {
      throw invalidRequest(`resource ${quote(uri)} is not percent-encoded correctly`);
    }
  };
  const topic = decode(slash === -1 ? rest : rest.slice(0, slash));
  const query = slash === -1 ? undefined : decode(rest.slice(slash + 1));
  if (topic.trim() === "") throw invalidRequest(`resource ${quote(uri)} names no topic: use ${KNOWLEDGE_TEMPLATE}`);
  return { topic, ...(query !== undefined && query.trim() !== "" ? { query } : {}) };
}

function render(topic: string, query: string | undefined, results: MemoryHit[]): string {
  const knowledge = results.filter((r) => r.kind === "knowledge");
  const answers = results.filter((r) => r.kind === "qa");
  const lines = [`# ${topic}${query !== undefined ? ` — ${query}` : ""}`, ""];
  if (results.length === 0) lines.push(query !== undefined ? "Nothing in this topic matches the query." : "This topic holds nothing yet.");
  if (knowledge.length > 0) {
    lines.push("## Knowledge", "");
    for (const k of knowledge) lines.push(`<!-- knowledge ${k.id} -->`, k.text ?? "", "");
  }
  if (answers.length > 0) {
    lines.push("## Answered questions", "");
    for (const a of answers) lines.push(`<!-- qa ${a.id} -->`, `**Q:** ${a.question}`, "", `**A:** ${a.answer}`, "");
  }
  return lines.join("\n").trimEnd();
}

/**
 * Agent memory as MCP resources of the server's default database: one `knowledge://{topic}`
 * resource per topic (its knowledge and unmerged answers), the template
 * `knowledge://{topic}/{query}` (the best knowledge and answers for a query in that topic), and
 * completion of `topic`.
 */
export function memoryResources(docdb: DocDB, db: string): ResourceProvider {
  const memory = async () => ((await docdb.exists(db)) ? (await docdb.database(db)).memory : undefined);
  return {
    async list(): Promise<Resource[]> {
      const m = await memory();
      if (!m) return [];
      return (await m.listTopics()).map((t) => ({
        uri: knowledgeUri(t.name),
        name: t.name,
        title: `Knowledge: ${t.name}`,
        description: `What agents worked out about "${t.name}": ${t.knowledge_count} knowledge records, ${t.unmerged_count} unmerged answers. Read ${KNOWLEDGE_TEMPLATE} for a query.`,
        mimeType: "text/markdown",
      }));
    },
    templates(): ResourceTemplate[] {
      return [
        {
          uriTemplate: KNOWLEDGE_TEMPLATE,
          name: "knowledge",
          title: "Knowledge on a topic",
          description:
            "The best knowledge records and answers agents stored for a query in one topic (topic names complete). Percent-encode both parts.",
          mimeType: "text/markdown",
        },
      ];
    },
    async read(uri: string): Promise<ReadResourceResult> {
      const { topic, query } = parseUri(uri);
      const m = await memory();
      try {
        if (!m) throw new DocDBError("NOT_FOUND", `no topic ${JSON.stringify(topic)}: database "${db}" holds no memory yet`);
        const found = await m.readTopic(topic, query);
        return { contents: [{ uri, mimeType: "text/markdown", text: render(found.topic, query, found.results) }] };
      } catch (error) {
        const failure = toDocDBError(error);
        if (failure.code === "NOT_FOUND") throw new RequestError(RESOURCE_NOT_FOUND, failure.message, { code: "NOT_FOUND", uri });
        if (failure.code === "INVALID_REQUEST") throw invalidRequest(failure.message);
        throw error;
      }
    },
    async complete(uriTemplate, argument): Promise<string[]> {
      if (uriTemplate !== KNOWLEDGE_TEMPLATE || argument.name !== "topic") return [];
      const m = await memory();
      return m ? m.completeTopic(argument.value) : [];
    },
  };
}
