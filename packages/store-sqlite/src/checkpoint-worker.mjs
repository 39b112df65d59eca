// The background WAL checkpointer: a worker thread holding its own connection to one database
// file, copying WAL frames into it (`PRAGMA wal_checkpoint(PASSIVE)`) when the store asks, so the
// copy and its fsyncs run off the thread that writes (see checkpointer.ts).
//
// sqlite-vec is not loaded: a checkpoint copies pages and reads no table, and a schema naming an
// unknown virtual table module still opens (it fails only when that table is used).
//
// The store asks through shared memory (slots of an Int32Array, whose positions checkpointer.ts
// names and sends here), not messages: a request is seen at once even while the writing thread's
// event loop is busy (a tight ingest loop), and the writing thread reads the answers without
// waiting for an event. Only a failure's text comes as a message ({ fatal }).

import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

const { path, nativeBinding, shared, slotsAt } = workerData;
const slots = new Int32Array(shared);
// The slots' positions, as checkpointer.ts names and describes them (SLOTS).
const { REQUEST, DONE, BUSY, LOG, CHECKPOINTED, FAILED, RUNNING, CHECKPOINTS } = slotsAt;

function fail(message) {
  Atomics.store(slots, FAILED, 1);
  parentPort.postMessage({ fatal: message });
}

function serve(db) {
  for (;;) {
    Atomics.wait(slots, REQUEST, 0);
    Atomics.store(slots, RUNNING, 1);
    const command = Atomics.exchange(slots, REQUEST, 0);
    let failed = false;
    if (command === 1) {
      try {
        const row = db.prepare("PRAGMA wal_checkpoint(PASSIVE)").get();
        Atomics.store(slots, BUSY, row.busy);
        Atomics.store(slots, LOG, row.log);
        Atomics.store(slots, CHECKPOINTED, row.checkpointed);
        Atomics.add(slots, CHECKPOINTS, 1);
      } catch (error) {
        // Busy under contention (another connection checkpoints or recovers the WAL): asked again later.
        if (!/^SQLITE_(BUSY|LOCKED)/.test(String(error.code ?? ""))) {
          fail(`a checkpoint failed: ${error.message}`);
          failed = true;
        }
      }
    }
    Atomics.store(slots, RUNNING, 0);
    Atomics.add(slots, DONE, 1);
    Atomics.notify(slots, DONE);
    if (command === 2 || failed) return;
  }
}

let db;
try {
  db = new Database(path, nativeBinding ? { fileMustExist: true, nativeBinding } : { fileMustExist: true });
  // A checkpoint syncs the WAL and then the database file; NORMAL is the writing connection's own level.
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 50");
  // A checkpoint copies frames through the file, not the page cache: keep the cache small.
  db.pragma("cache_size = -256");
} catch (error) {
  fail(`cannot open ${path}: ${error.message}`);
}
if (db) {
  serve(db);
  db.close();
}
