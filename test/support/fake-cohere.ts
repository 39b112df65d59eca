import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local HTTP server speaking Cohere's rerank wire format: `POST …/rerank {model, query,
 * documents, top_n}` → `{results: [{index, relevance_score}]}`, best first, top_n of them.
 * A document's score is the share of the query's words it contains (0–1), so tests can say
 * which order is right. Scripted failures come first; `scale` multiplies every score (a server
 * answering logits instead of 0–1 scores).
 */
export interface FakeCohere {
  url: string;
  requests: { model: string; query: string; documents: string[]; top_n?: number; authorization?: string }[];
  failures: { status: number; body?: unknown }[];
  scale: number;
  close(): Promise<void>;
}

export function overlapScore(query: string, document: string): number {
  const words = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const q = words(query);
  const d = words(document);
  if (q.size === 0) return 0;
  let shared = 0;
  for (const w of q) if (d.has(w)) shared++;
  return shared / q.size;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

export async function startFakeCohere(): Promise<FakeCohere> {
  const state: Pick<FakeCohere, "requests" | "failures" | "scale"> = { requests: [], failures: [], scale: 1 };
  const server: Server = createServer(async (req, res) => {
    if (req.method !== "POST" || !req.url?.endsWith("/rerank")) return send(res, 404, { message: `no route ${req.method} ${req.url}` });
    const body = JSON.parse(await readBody(req)) as { model: string; query: string; documents: string[]; top_n?: number };
    state.requests.push({ ...body, authorization: req.headers.authorization });
    const failure = state.failures.shift();
    if (failure) return send(res, failure.status, failure.body ?? { message: `scripted ${failure.status}` });
    const results = body.documents
      .map((document, index) => ({ index, relevance_score: overlapScore(body.query, document) * fake.scale }))
      .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index)
      .slice(0, body.top_n ?? body.documents.length);
    send(res, 200, { id: "fake", results, meta: { api_version: { version: "1" } } });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeCohere = {
    url: `http://127.0.0.1:${port}/v1`,
    ...state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return fake;
}
