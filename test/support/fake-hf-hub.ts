import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

/**
 * A local HTTP server that answers like the Hugging Face hub's file route
 * (`/<org>/<name>/resolve/<revision>/<file>`, GET and HEAD) for one model, served from a
 * folder on disk. Lets the download-on-first-use path run offline against real files.
 */
export interface FakeHub {
  /** The host to give the provider (`remoteHost` / HF_ENDPOINT). */
  url: string;
  requests: { method: string; path: string }[];
  close(): Promise<void>;
}

export async function startFakeHub(modelId: string, folder: string, aliases: Record<string, string> = {}): Promise<FakeHub> {
  const requests: FakeHub["requests"] = [];
  const prefix = `/${modelId}/resolve/main/`;
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    requests.push({ method: req.method ?? "GET", path });
    const requested = path.startsWith(prefix) ? path.slice(prefix.length) : undefined;
    const file = requested !== undefined ? join(folder, aliases[requested] ?? requested) : undefined;
    if (!file || requested?.includes("..") || !existsSync(file)) {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("Entry not found");
      return;
    }
    const body = readFileSync(file);
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(body.length) });
    res.end(req.method === "HEAD" ? undefined : body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 with nothing listening (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
