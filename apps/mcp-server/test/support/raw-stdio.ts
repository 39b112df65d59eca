import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { assertBuilt, BIN, serverEnv, stopProcess } from "./server-process.js";

export interface JsonRpcResponse {
  jsonrpc: "2.0";
  id: number | string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: { code?: string } };
}

/**
 * The server process driven line by line, so tests can send what no well-behaved client
 * would: broken JSON, wrong types, huge lines.
 */
export class RawStdioServer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly stdoutGarbage: string[] = [];
  stderr = "";
  private readonly waiting = new Map<number | string, (response: JsonRpcResponse) => void>();
  readonly responses = new Map<number | string, JsonRpcResponse[]>();

  constructor(dataDir: string) {
    this.child = spawn(process.execPath, [assertBuilt(BIN), "--data-dir", dataDir], { env: serverEnv() });
    // Writes still in flight when the process is stopped fail with EPIPE; that is not the test's concern.
    this.child.stdin.on("error", () => undefined);
    this.child.stderr.on("data", (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      let message: JsonRpcResponse;
      try {
        message = JSON.parse(line) as JsonRpcResponse;
      } catch {
        this.stdoutGarbage.push(line);
        return;
      }
      if (message.id === undefined) return; // a notification
      this.responses.set(message.id, [...(this.responses.get(message.id) ?? []), message]);
      this.waiting.get(message.id)?.(message);
    });
  }

  /** Writes one raw line (a newline is added). */
  write(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  request(id: number | string, method: string, params?: unknown): Promise<JsonRpcResponse> {
    const answered = new Promise<JsonRpcResponse>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to request ${id} (${method})\n${this.stderr.slice(-2000)}`)), 20_000);
      this.waiting.set(id, (response) => {
        clearTimeout(timer);
        resolve(response);
      });
    });
    this.write(JSON.stringify({ jsonrpc: "2.0", id, method, ...(params !== undefined ? { params } : {}) }));
    return answered;
  }

  async initialize(): Promise<void> {
    await this.request("init", "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw-test", version: "0" },
    });
    this.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  stop(): Promise<void> {
    this.child.stdin.end();
    return stopProcess(this.child);
  }
}
