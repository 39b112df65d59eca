// A PGlite (PostgreSQL 18 + pgvector) server on loopback, for tests. Run as a child process so a
// test can kill it mid-write: node pglite-server-main.mjs <port> [dataDir]. Prints
// "listening <port>" once it accepts connections.
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

const port = Number(process.argv[2] ?? 0);
const dataDir = process.argv[3] || undefined;
const db = await PGlite.create({ dataDir, extensions: { vector } });
const server = new PGLiteSocketServer({ db, port, host: "127.0.0.1", maxConnections: 100 });
keepMessageGroupsTogether(server.queryQueue);
server.addEventListener("listening", (event) => {
  process.stdout.write(`listening ${event.detail.port}\n`);
});
await server.start();

const shutdown = async () => {
  await server.stop();
  await db.close();
  process.exit(0);
};
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);

/**
 * PGlite has one backend; the socket server queues every client's protocol messages onto it one
 * message at a time, keeping a client's messages together only inside a transaction. Outside
 * one, two clients' extended-protocol groups (Parse, Bind, Describe, Execute … Sync) interleave
 * and the second Parse replaces the first's unnamed statement ("unnamed prepared statement does
 * not exist"). A real server has a backend per connection; this keeps each client's group
 * together until its Sync (or a simple Query, Terminate or startup message), as that would.
 */
function keepMessageGroupsTogether(queue) {
  if (!queue || typeof queue.processQueue !== "function") throw new Error("pglite-socket changed: no queryQueue.processQueue");
  let groupOwner = null;
  const ENDS_GROUP = new Set([0x53 /* Sync */, 0x51 /* Query */, 0x58 /* Terminate */, 0x00 /* startup */]);
  queue.processQueue = async function processQueue() {
    if (this.processing || this.queue.length === 0) return;
    this.processing = true;
    try {
      while (this.queue.length > 0) {
        const owner = groupOwner ?? (this.db.isInTransaction() && this.lastHandlerId ? this.lastHandlerId : null);
        let item;
        if (owner !== null) {
          const index = this.queue.findIndex((r) => r.handlerId === owner);
          if (index === -1) break; // wait for the owner's next message
          item = this.queue.splice(index, 1)[0];
        } else {
          item = this.queue.shift();
        }
        let bytes = 0;
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(item.message, {
              onRawData: (data) => {
                bytes += data.length;
                item.onData(data);
              },
            }),
          );
        } catch (error) {
          groupOwner = null;
          item.reject(error);
          continue;
        }
        groupOwner = ENDS_GROUP.has(item.message[0]) ? null : item.handlerId;
        this.lastHandlerId = item.handlerId;
        item.resolve(bytes);
      }
    } finally {
      this.processing = false;
    }
  };
  const clear = queue.clearQueueForHandler.bind(queue);
  queue.clearQueueForHandler = (handlerId) => {
    if (groupOwner === handlerId) groupOwner = null;
    clear(handlerId);
    void queue.processQueue();
  };
}
