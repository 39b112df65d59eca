// Where `pnpm bench` keeps its databases: temporary SQLite files (the default), a PostgreSQL
// server (`--store postgres://…` or DOCDB_STORE_URL), or PGlite started for the run
// (`--store pglite`: PostgreSQL + pgvector compiled to WebAssembly, served over TCP on loopback
// by a child process, so anyone can rerun the PostgreSQL numbers without a server).
//
// On PostgreSQL every database of the run gets a name no other run uses (`bench_<pid>_<time>_…`,
// schema `docdb_bench_…`) and is dropped at the end, also on Ctrl-C; nothing else on the server
// is touched. The password is never printed: labels use core's `redactUrl`.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const requireSqlite = createRequire(new URL("../../packages/store-sqlite/package.json", import.meta.url));
const requirePostgres = createRequire(new URL("../../packages/store-postgres/package.json", import.meta.url));
/** The PGlite server the store-postgres tests use (keeps each client's protocol messages together). */
const PGLITE_MAIN = fileURLToPath(new URL("../../packages/store-postgres/test/support/pglite-server-main.mjs", import.meta.url));
const STORE_POSTGRES = new URL("../../packages/store-postgres/dist/index.js", import.meta.url);

/** `--store` as given (flag, else DOCDB_STORE_URL): undefined (SQLite), "pglite" or a postgres:// URL. */
export function parseStore(value) {
  if (value === undefined || value.trim() === "") return undefined;
  const store = value.trim();
  if (store === "pglite" || /^postgres(ql)?:\/\//i.test(store)) return store;
  // Echoed without its password, if it has one.
  const shown = store.replace(/(\/\/[^:/@]*:)[^@]*@/, "$1***@");
  throw new Error(
    `--store (or DOCDB_STORE_URL) takes postgres://user:pass@host:port/db or pglite, got "${shown}" ` +
      "(without it the bench uses temporary SQLite files)",
  );
}

/**
 * The target of a run. `store` is what `openDocDB({ store })` gets; `dbName(base)` the name of a
 * database of this run; `openRawKnn(name)` the engine's own nearest-neighbour query on that
 * database (docdb's overhead is measured against it); `close()` drops what the run created.
 */
export async function openTarget(core, { store, dataDir, log }) {
  if (store === undefined) return sqliteTarget(dataDir);
  let pglite;
  let url = store;
  if (store === "pglite") {
    log("starting PGlite (PostgreSQL + pgvector in WebAssembly) on loopback");
    pglite = await startPglite();
    url = pglite.url;
  }
  try {
    return await postgresTarget(core, { url, pglite, log });
  } catch (error) {
    await pglite?.stop();
    throw error;
  }
}

function sqliteTarget(dataDir) {
  return {
    kind: "sqlite",
    // A folder, given explicitly: DOCDB_STORE_URL in the environment must not redirect the run.
    store: dataDir,
    location: "temporary SQLite files",
    rawKnnLabel: "sqlite-vec alone on the same table",
    reembedInPlace: false,
    dbName: (base) => base,
    mcpStore: { args: ["--data-dir", dataDir], env: { DOCDB_STORE_URL: undefined } },
    async openRawKnn(name) {
      const Database = requireSqlite("better-sqlite3");
      const db = new Database(join(dataDir, `${name}.db`), { readonly: true });
      requireSqlite("sqlite-vec").load(db);
      const knn = db.prepare("SELECT rowid, distance FROM chunks_vec WHERE embedding MATCH ? AND k = ? ORDER BY distance");
      return {
        knn: async (vector, k) => knn.all(Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength), k),
        close: async () => db.close(),
      };
    },
    async close() {},
  };
}

/** Connects with the `pg` driver the PostgreSQL engine uses. */
async function connect(url) {
  const pg = requirePostgres("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

/** What serves the run, read from the server itself. */
async function describeServer(client) {
  const one = async (sql) => (await client.query(sql)).rows[0];
  const { version } = await one("SELECT version() AS version");
  const { server_version: serverVersion } = await one("SHOW server_version");
  const ext = await one(
    `SELECT (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS installed,
            (SELECT default_version FROM pg_available_extensions WHERE name = 'vector') AS available`,
  );
  const settings = {};
  for (const name of ["shared_buffers", "work_mem", "maintenance_work_mem", "max_parallel_workers_per_gather"]) {
    settings[name] = (await one(`SELECT current_setting('${name}', true) AS value`))?.value ?? null;
  }
  const pglite = /\(PGlite ([^)]+)\)/.exec(version)?.[1];
  const pgvector = ext?.installed ?? ext?.available ?? null;
  const label = pglite
    ? `PGlite ${pglite} (PostgreSQL ${serverVersion}, pgvector ${pgvector ?? "missing"}, WebAssembly, single backend) — not a tuned server`
    : `PostgreSQL ${serverVersion} (pgvector ${pgvector ?? "missing"}; shared_buffers ${settings.shared_buffers}, work_mem ${settings.work_mem}, maintenance_work_mem ${settings.maintenance_work_mem})`;
  return { label, version, serverVersion, pgvector, pglite: pglite ?? null, settings };
}

async function postgresTarget(core, { url, pglite, log }) {
  const location = core.redactUrl(url);
  // Whatever goes wrong, a message never carries the password.
  let password = "";
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {}
  const redact = (text) => (password ? String(text).replaceAll(password, "***") : String(text));
  let probe;
  try {
    probe = await connect(url);
  } catch (error) {
    throw new Error(`cannot reach PostgreSQL at ${location}: ${redact(error.message)}`);
  }
  let server;
  try {
    server = await describeServer(probe);
  } finally {
    await probe.end();
  }
  if (!server.pgvector)
    throw new Error(`PostgreSQL at ${location} has no pgvector extension available (docdb needs pgvector 0.5 or later)`);
  log(`store ${location}: ${server.label}`);

  const run = `bench_${process.pid}_${Date.now().toString(36)}`;
  const created = new Set();
  const { schemaNameFor } = await import(STORE_POSTGRES.href);
  let closing;
  const cleanup = async () => {
    const docdb = core.openDocDB({ store: url, embedding: null, logger: core.silentLogger() });
    const dropped = [];
    try {
      // The names this run made, and any other of this run's prefix (a database that was being created).
      const names = new Set([...created, ...(await docdb.databaseNames()).filter((n) => n.startsWith(`${run}_`))]);
      for (const name of names) if (await docdb.dropDatabase(name)) dropped.push(name);
    } finally {
      await docdb.close();
    }
    return dropped;
  };
  const onSignal = (signal) => {
    log(`${signal}: dropping this run's databases`);
    target
      .close()
      .catch((error) => log(`cleanup failed: ${redact(error.message)}`))
      .finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);

  const target = {
    kind: "postgres",
    store: url,
    location,
    server,
    redact,
    rawKnnLabel: "pgvector alone (HNSW, ef_search 40: docdb's setting for top 10) on the same table",
    // No file to copy: the other dimensions re-embed the same database after the first one's measurements.
    reembedInPlace: true,
    dbName(base) {
      const name = `${run}_${base}`;
      created.add(name);
      return name;
    },
    // The URL goes in the environment, not the arguments (process lists show arguments).
    mcpStore: { args: [], env: { DOCDB_STORE_URL: url } },
    schemaOf: (name) => schemaNameFor(name),
    connect: () => connect(url),
    async openRawKnn(name) {
      const client = await connect(url);
      const schema = await vectorSchema(client);
      await client.query(`SET search_path = ${quoteIdent(schemaNameFor(name))}, ${quoteIdent(schema)}`);
      await client.query("SET hnsw.ef_search = 40");
      return {
        knn: async (vector, k) =>
          (
            await client.query(
              "SELECT seq, embedding <=> $1::vector AS distance FROM chunk_vectors ORDER BY embedding <=> $1::vector LIMIT $2",
              [vectorText(vector), k],
            )
          ).rows,
        close: () => client.end(),
      };
    },
    close() {
      closing ??= (async () => {
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
        try {
          const dropped = await cleanup();
          log(`dropped ${dropped.length} database(s) of this run (schemas ${dropped.map((n) => schemaNameFor(n)).join(", ") || "none"})`);
          target.dropped = dropped;
        } finally {
          await pglite?.stop();
        }
      })();
      return closing;
    },
  };
  return target;
}

export function quoteIdent(name) {
  return `"${name.replaceAll('"', '""')}"`;
}

/** pgvector's text form of a vector: each float's shortest decimal reads back as the same float4. */
export function vectorText(vector) {
  return `[${Array.from(vector).join(",")}]`;
}

/** The schema holding pgvector's type and operators. */
export async function vectorSchema(client) {
  const { rows } = await client.query(
    "SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'",
  );
  if (!rows[0]) throw new Error("the vector extension is not installed");
  return rows[0].schema;
}

/** PGlite (with pgvector) over TCP on loopback in a child process, stopped by `stop()`. */
export function startPglite() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PGLITE_MAIN, "0"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    const killOnExit = () => child.kill("SIGKILL");
    process.once("exit", killOnExit);
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`PGlite did not start within 60 s: ${err.trim()}`));
    }, 60_000);
    child.stderr.setEncoding("utf8").on("data", (d) => {
      err += d;
    });
    child.stdout.setEncoding("utf8").on("data", (d) => {
      out += d;
      const match = /listening (\d+)/.exec(out);
      if (!match) return;
      clearTimeout(timer);
      resolve({
        url: `postgres://postgres:postgres@127.0.0.1:${match[1]}/postgres`,
        async stop() {
          process.off("exit", killOnExit);
          if (child.exitCode !== null || child.signalCode !== null) return;
          const exited = new Promise((done) => child.once("exit", done));
          child.kill("SIGTERM");
          const hard = setTimeout(() => child.kill("SIGKILL"), 5_000);
          await exited;
          clearTimeout(hard);
        },
      });
    });
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(new Error(`PGlite could not be started: ${error.message}`));
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      process.off("exit", killOnExit);
      reject(new Error(`PGlite exited (${signal ?? code}) before listening: ${err.trim() || "no message"}`));
    });
  });
}
