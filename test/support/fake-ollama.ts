import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fakeVector } from "./fake-openai.js";

/**
 * A local HTTP server speaking Ollama's `POST /api/embed` wire format. Vectors are the same
 * deterministic function of the text as the fake OpenAI server's. Only models in `models`
 * exist (others get Ollama's 404 "not found, try pulling it first"); scripted failures come
 * first; `onRequest` lets a test act at an exact request (e.g. kill the client mid-run).
 */
export interface FakeOllama {
  url: string;
  requests: { model: string; input: string[]; truncate?: boolean }[];
  failures: { status: number; error?: string }[];
  onRequest?: (index: number) => void | Promise<void>;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

export async function startFakeOllama(models: Record<string, number> = { "bge-m3": 1024 }): Promise<FakeOllama> {
  const fake: Omit<FakeOllama, "url" | "close"> = { requests: [], failures: [] };
  const server: Server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify(body));
    };
    if (req.method !== "POST" || req.url !== "/api/embed") return send(404, { error: "404 page not found" });
    let body: { model?: string; input?: string | string[]; truncate?: boolean };
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      return send(400, { error: "invalid character in JSON body" });
    }
    const input = Array.isArray(body.input) ? body.input : [body.input ?? ""];
    const index = fake.requests.length;
    fake.requests.push({ model: String(body.model), input, truncate: body.truncate });
    await fake.onRequest?.(index);
    const failure = fake.failures.shift();
    if (failure) return send(failure.status, { error: failure.error ?? `scripted ${failure.status}` });
    const name = String(body.model).replace(/:latest$/, "");
    const dimensions = models[name];
    if (dimensions === undefined) return send(404, { error: `model "${body.model}" not found, try pulling it first` });
    send(200, {
      model: body.model,
      embeddings: input.map((text) => fakeVector(text, dimensions)),
      total_duration: 1000,
      load_duration: 10,
      prompt_eval_count: input.length,
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
