// The page's calls to its server: JSON over fetch with the bearer token (kept in sessionStorage,
// sent as a header, never a cookie), and server-sent events read from a POST's streamed body.
const TOKEN_KEY = "docdb.token";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function token(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(value: string | null): void {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
}

function headers(json: boolean): Record<string, string> {
  const h: Record<string, string> = { accept: json ? "application/json" : "text/event-stream" };
  const t = token();
  if (t) h.authorization = `Bearer ${t}`;
  return h;
}

async function failure(response: Response): Promise<ApiError> {
  try {
    const body = (await response.json()) as { error?: { code?: string; message?: string } };
    return new ApiError(response.status, body.error?.code ?? "INTERNAL", body.error?.message ?? response.statusText);
  } catch {
    return new ApiError(response.status, "INTERNAL", response.statusText);
  }
}

/** One call to /ui/api`path`; throws ApiError with the server's code and message. */
export async function api<T>(method: "GET" | "POST" | "DELETE", path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, headers: headers(true), credentials: "omit", cache: "no-store" };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  const response = await fetch(`/ui/api${path}`, init);
  if (!response.ok) throw await failure(response);
  return (await response.json()) as T;
}

/** A task answered with server-sent events: calls onEvent per event, resolves with `done`'s data. */
export async function stream<T>(path: string, body: unknown, onEvent: (event: string, data: unknown) => void): Promise<T> {
  const response = await fetch(`/ui/api${path}`, {
    method: "POST",
    headers: { ...headers(false), "content-type": "application/json" },
    body: JSON.stringify(body ?? {}),
    credentials: "omit",
    cache: "no-store",
  });
  if (!response.ok || !response.body) throw await failure(response);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let result: T | undefined;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf("\n\n");
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
      const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? "null") as unknown;
      if (event === "error") {
        const e = data as { code: string; message: string };
        throw new ApiError(200, e.code, e.message);
      }
      if (event === "done") result = data as T;
      else onEvent(event, data);
    }
  }
  if (result === undefined) throw new ApiError(0, "INTERNAL", "the server closed the stream before the task finished");
  return result;
}

export function dbPath(db: string, rest = ""): string {
  return `/databases/${encodeURIComponent(db)}${rest}`;
}
