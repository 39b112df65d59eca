import type { IncomingMessage } from "node:http";

export type BodyResult = { ok: true; value: unknown } | { ok: false; status: 400 | 413; message: string };

/**
 * Reads and parses a JSON request body, stopping at `limit` bytes so a huge upload costs
 * neither memory nor parse time.
 */
export function readJsonBody(request: IncomingMessage, limit: number): Promise<BodyResult> {
  const tooLarge: BodyResult = {
    ok: false,
    status: 413,
    message: `request body is larger than ${limit} bytes: send less text per call`,
  };
  const declared = Number(request.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    request.resume();
    return Promise.resolve(tooLarge);
  }
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let size = 0;
    let over = false;
    request.on("data", (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        parts.length = 0;
        resolve(tooLarge);
        return;
      }
      parts.push(chunk);
    });
    request.on("error", () => resolve({ ok: false, status: 400, message: "the request body could not be read" }));
    request.on("end", () => {
      if (over) return;
      try {
        resolve({ ok: true, value: JSON.parse(Buffer.concat(parts).toString("utf8")) });
      } catch (error) {
        resolve({ ok: false, status: 400, message: `the body is not valid JSON (${(error as Error).message.slice(0, 200)})` });
      }
    });
  });
}
