import { type DocDB, DocDBError, echo, type Memory, type MemoryHit } from "@docdb/core";
import { ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Resource } from "@modelcontextprotocol/sdk/types.js";
import { invalidRequest, quote } from "../request-error.js";

export const KNOWLEDGE_SCHEME = "knowledge://";
export const KNOWLEDGE_TEMPLATE = "knowledge://{topic}/{query}";

/** `knowledge://Deploy` for a topic, `knowledge://Deploy/roll%20back` for a query in it. */
export function knowledgeUri(topic: string, query?: string): string {
  return `${KNOWLEDGE_SCHEME}${encodeURIComponent(topic)}${query !== undefined ? `/${encodeURIComponent(query)}` : ""}`;
}

/** True for a `knowledge://` URI (whether or not it is well formed). */
export function isKnowledgeUri(uri: string): boolean {
  return uri.startsWith(KNOWLEDGE_SCHEME);
}

function parseUri(uri: string): { topic: string; query?: string } {
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
 * Agent memory of one database (the server's default) as MCP resources: one `knowledge://{topic}`
 * resource per topic (its knowledge and unmerged answers), the template
 * `knowledge://{topic}/{query}` (the best knowledge and answers for a query in that topic) and
 * completion of `topic`. Part of DocdbResources, which routes requests here.
 */
export class KnowledgeResources {
  readonly entry: { name: string; title: string; description: string; mimeType: string; template: ResourceTemplate };

  constructor(
    private readonly docdb: DocDB,
    private readonly db: string,
  ) {
    this.entry = {
      name: "knowledge",
      title: "Knowledge on a topic",
      description:
        "The best knowledge records and answers agents stored for a query in one topic of the default database (topic names complete). Percent-encode both parts.",
      mimeType: "text/markdown",
      template: new ResourceTemplate(KNOWLEDGE_TEMPLATE, {
        list: undefined,
        complete: { topic: (value) => this.completeTopic(value) },
      }),
    };
  }

  /** The database's memory; undefined while the database does not exist. */
  private async memory(): Promise<Memory | undefined> {
    if (!(await this.docdb.exists(this.db).catch(() => false))) return undefined;
    return (await this.docdb.database(this.db)).memory;
  }

  /** One resource per topic, in name order. */
  async list(): Promise<Resource[]> {
    const m = await this.memory();
    if (!m) return [];
    return (await m.listTopics()).map((t) => ({
      uri: knowledgeUri(t.name),
      name: t.name,
      title: `Knowledge: ${t.name}`,
      description: `What agents worked out about "${t.name}": ${t.knowledge_count} knowledge records, ${t.unmerged_count} unmerged answers. Read ${KNOWLEDGE_TEMPLATE} for a query.`,
      mimeType: "text/markdown",
    }));
  }

  /** A topic's knowledge (with a query: the best matches), as Markdown. NOT_FOUND when no topic matches. */
  async read(uri: string): Promise<{ contents: { uri: string; mimeType: string; text: string }[] }> {
    const { topic, query } = parseUri(uri);
    const m = await this.memory();
    if (!m) throw new DocDBError("NOT_FOUND", `no topic "${echo(topic)}": database "${this.db}" holds no memory yet`);
    const found = await m.readTopic(topic, query);
    return { contents: [{ uri, mimeType: "text/markdown", text: render(found.topic, query, found.results) }] };
  }

  async completeTopic(prefix: string): Promise<string[]> {
    const m = await this.memory();
    return m ? m.completeTopic(prefix) : [];
  }
}
