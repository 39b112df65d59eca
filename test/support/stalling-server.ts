// Providers that never finish an answer, for deadline tests: one that accepts connections and
// never says a word, and one that sends 200 and the start of a JSON body, then stalls.
import { createServer as createHttpServer } from "node:http";
import { type AddressInfo, createServer as createNetServer, type Socket } from "node:net";

export type Stall = "silent" | "after-headers";

export interface StallingServer {
  /** `http://127.0.0.1:<port>`: add the provider's path (`/v1` for OpenAI). */
  url: string;
  /** Requests (or, when silent, connections) received so far. */
  readonly received: number;
  /** Resolves once `count` requests (connections) have arrived. */
  receivedAtLeast(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startStallingServer(stall: Stall): Promise<StallingServer> {
  const sockets = new Set<Socket>();
  let received = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  const arrived = () => {
    received++;
    for (const waiter of waiters.splice(0)) {
      if (received >= waiter.count) waiter.resolve();
      else waiters.push(waiter);
    }
  };
  const server =
    stall === "silent"
      ? createNetServer((socket) => {
          sockets.add(socket);
          socket.on("error", () => undefined);
          socket.resume();
          arrived();
        })
      : createHttpServer((req, res) => {
          req.resume();
          // Headers and a first piece of the answer, then nothing: the body never ends.
          res.writeHead(200, { "content-type": "application/json" });
          res.write('{"object":"list","embeddings":[[0.1,');
          arrived();
        });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get received() {
      return received;
    },
    receivedAtLeast: (count) => (received >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve }))),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
