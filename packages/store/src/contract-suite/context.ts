// What every area of the contract suite shares: the engine under test (through a context
// filled in by the suite's beforeAll) and the two helpers the tests lean on.
import { buildKeywordQuery, type KeywordQuery } from "@docdb/analyzer";
import { expect } from "vitest";
import { StoreError } from "../errors.js";
import type { Store, StoreEngine } from "../types.js";

/** What a contract run needs from an engine's test setup. */
export interface ContractTarget {
  engine: StoreEngine;
  /** A second engine on the same storage (another connection or pool), as another process would have. */
  second: () => Promise<StoreEngine>;
  cleanup?: () => Promise<void>;
}

/** What each area's tests get from `runStoreContract`; read inside tests (set once setup has run). */
export interface ContractContext {
  /** The engine under test. */
  readonly engine: StoreEngine;
  /** A second engine on the same storage (`ContractTarget.second`). */
  second(): Promise<StoreEngine>;
  /** A new, empty database of the test's own. */
  fresh(): Promise<Store>;
}

export const query = (text: string): KeywordQuery => {
  const q = buildKeywordQuery(text);
  if (!q) throw new Error(`no keyword query for ${text}`);
  return q;
};

export async function expectStoreError(promise: Promise<unknown>, code: string): Promise<StoreError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(StoreError.isInstance(error), `expected a StoreError ${code}, got ${String(error)}`).toBe(true);
  expect((error as StoreError).code).toBe(code);
  return error as StoreError;
}
