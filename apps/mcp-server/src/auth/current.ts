// The caller of the request being handled, carried through its async work (tool calls reach
// `databaseFor` without every tool passing it along). Outside a request: the local user, admin.
import { AsyncLocalStorage } from "node:async_hooks";
import { type Caller, OPEN_CALLER } from "./caller.js";

export interface CallerScope {
  caller: Caller;
  /** From where: the remote address, or "stdio". */
  origin: string;
}

const storage = new AsyncLocalStorage<CallerScope>();
const LOCAL: CallerScope = { caller: OPEN_CALLER, origin: "stdio" };

export function runAs<T>(scope: CallerScope, work: () => T): T {
  return storage.run(scope, work);
}

export function currentScope(): CallerScope {
  return storage.getStore() ?? LOCAL;
}

export function currentCaller(): Caller {
  return currentScope().caller;
}
