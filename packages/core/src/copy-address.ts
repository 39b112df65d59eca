// `DocDB.copyDatabase`: resolves the source and target addresses (a bare name, sqlite:NAME,
// sqlite:/path/NAME.db, postgres://…#NAME) to engines, opens both, and runs `copyStore`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import type { StoreEngine } from "@docdb/store";
import { type CopyOptions, type CopyResult, copyStore } from "./copy.js";
import { createEngine, isPostgresUrl } from "./engines.js";
import { DocDBError, fromStoreError } from "./errors.js";
import { DEFAULT_DB_NAME, validateDbName } from "./validate.js";

export interface CopyPlace {
  /** This DocDB's own engine, for bare names. */
  engine(): Promise<StoreEngine>;
  /** The data folder `sqlite:NAME` refers to. */
  dataDir: string;
  sqlRole?: string;
}

export async function copyBetween(place: CopyPlace, from: string, to: string, options: CopyOptions = {}): Promise<CopyResult> {
  const opened: StoreEngine[] = [];
  let scratch: string | undefined;
  try {
    const source = await resolveAddress(place, from, opened);
    const target = await resolveAddress(place, to, opened);
    // Labels from the engines' locations: never a password.
    const labels = { from: `${source.engine.location}#${source.name}`, to: `${target.engine.location}#${target.name}` };
    if (labels.from === labels.to) throw new DocDBError("INVALID_REQUEST", `${labels.from} is both the source and the target`);
    const sourceStore = await openAt(source.engine, source.name, false);
    // A dry run into a database that does not exist yet compares with an empty one made aside.
    if (options.dryRun && !(await target.engine.databaseExists(target.name))) scratch = mkdtempSync(join(tmpdir(), "docdb-dry-"));
    const targetStore = scratch
      ? await openAt((await resolveAddress(place, `sqlite:${join(scratch, "dry.db")}`, opened)).engine, "dry", true)
      : await openAt(target.engine, target.name, true);
    try {
      return await copyStore(sourceStore, targetStore, labels, options);
    } catch (error) {
      throw fromStoreError(error);
    }
  } finally {
    for (const engine of opened) await engine.close().catch(() => undefined);
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

async function openAt(engine: StoreEngine, name: string, create: boolean) {
  try {
    return await engine.openDatabase(name, { create });
  } catch (error) {
    const converted = fromStoreError(error);
    if (DocDBError.isInstance(converted) && converted.code === "NOT_FOUND") {
      throw new DocDBError("NOT_FOUND", `database "${name}" does not exist in ${engine.location}`);
    }
    throw converted;
  }
}

async function resolveAddress(place: CopyPlace, address: string, opened: StoreEngine[]): Promise<{ engine: StoreEngine; name: string }> {
  const open = async (store: string): Promise<StoreEngine> => {
    try {
      const engine = await createEngine(store, { sqlRole: place.sqlRole });
      opened.push(engine);
      return engine;
    } catch (error) {
      throw fromStoreError(error);
    }
  };
  if (isPostgresUrl(address)) {
    const hash = address.indexOf("#");
    const name = hash < 0 ? DEFAULT_DB_NAME : decodeURIComponent(address.slice(hash + 1));
    return { engine: await open(hash < 0 ? address : address.slice(0, hash)), name: validateDbName(name) };
  }
  if (address.startsWith("sqlite:")) {
    const rest = address.slice("sqlite:".length);
    if (rest.includes("/") || rest.includes("\\") || rest.endsWith(".db")) {
      const file = resolve(rest);
      return { engine: await open(dirname(file)), name: validateDbName(basename(file).replace(/\.db$/, "")) };
    }
    return { engine: await open(place.dataDir), name: validateDbName(rest) };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(address)) {
    throw new DocDBError(
      "INVALID_REQUEST",
      `unknown address ${JSON.stringify(address)}: use NAME, sqlite:NAME, sqlite:/path/NAME.db or postgres://…#NAME`,
    );
  }
  return { engine: await place.engine(), name: validateDbName(address) };
}
