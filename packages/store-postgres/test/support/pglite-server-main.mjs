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
