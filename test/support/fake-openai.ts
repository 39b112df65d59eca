import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local HTTP server that speaks OpenAI's `/v1/embeddings` wire format. Vectors are a
 * deterministic function of the text (hashed character trigrams), so similar texts get
 * similar vectors and tests can reason about results. Scripted failures come first.
 */
export interface FakeOpenAI {
  url: string;
  requests: { model: string; input: string[]; dimensions?: number; authorization?: string }[];
  /** Responses to send before normal service: e.g. [{status: 429, retryAfter: "0"}, {status: 500}]. */
  failures: { status: number; retryAfter?: string; body?: unknown }[];
  /** Each embeddings answer waits this long first (a slow provider); may be changed while running. */
  delayMs: number;
  close(): Promise<void>;
}

export function fakeVector(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0);
  const s = ` ${text.normalize("NFKC").toLowerCase()} `;
  for (let i = 0; i + 3 <= s.length; i++) {
    let h = 2166136261;
    for (let j = i; j < i + 3; j++) h = Math.imul(h ^ s.charCodeAt(j), 16777619);
    const index = (h >>> 0) % dimensions;
    v[index] = (v[index] as number) + ((h & 1) === 0 ? 1 : -1) * 0.5 + 1;
  }
  const norm = Math.sqrt(v.reduce((a, x) => a + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** `delayMs`: each embeddings answer waits this long first (a slow provider, so concurrent work overlaps). */
export async function startFakeOpenAI(options: { dimensions?: number; delayMs?: number } = {}): Promise<FakeOpenAI> {
  const defaultDimensions = options.dimensions ?? 1536;
  const state: Pick<FakeOpenAI, "requests" | "failures" | "delayMs"> = { requests: [], failures: [], delayMs: options.delayMs ?? 0 };
  const server: Server = createServer(async (req, res) => {
    if (req.method !== "POST" || !req.url?.endsWith("/embeddings")) {
      return send(res, 404, { error: { message: `no route ${req.method} ${req.url}`, type: "invalid_request_error" } });
    }
    const body = JSON.parse(await readBody(req)) as {
      model: string;
      input: string | string[];
      dimensions?: number;
      encoding_format?: string;
    };
    const input = Array.isArray(body.input) ? body.input : [body.input];
    state.requests.push({ model: body.model, input, dimensions: body.dimensions, authorization: req.headers.authorization });
    const failure = state.failures.shift();
    if (failure) {
      const headers: Record<string, string> = failure.retryAfter !== undefined ? { "retry-after": failure.retryAfter } : {};
      return send(res, failure.status, failure.body ?? { error: { message: `scripted ${failure.status}`, type: "server_error" } }, headers);
    }
    if (input.length > 2048) return send(res, 400, { error: { message: "too many inputs", type: "invalid_request_error" } });
    if (state.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, state.delayMs));
    const dimensions = body.dimensions ?? defaultDimensions;
    const data = input.map((text, index) => {
      const vector = fakeVector(text, dimensions);
      const embedding = body.encoding_format === "base64" ? Buffer.from(new Float32Array(vector).buffer).toString("base64") : vector;
      return { object: "embedding", index, embedding };
    });
    send(res, 200, { object: "list", data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests: state.requests,
    failures: state.failures,
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(ms: number) {
      state.delayMs = ms;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
