// A real engine whose databases answer some methods through a test's own function (recording
// calls, failing on purpose); every other method and property passes through to the store.
import type { Store, StoreEngine } from "@docdb/store";

// biome-ignore lint/suspicious/noExplicitAny: a store method of any signature
type Method = (...args: any[]) => any;

/**
 * `engine`, with each opened store's method `name` replaced by what `replace` returns for it
 * (given the store's own method, bound), or left as it is when `replace` returns undefined.
 */
export function withStoreMethods(engine: StoreEngine, replace: (name: string | symbol, own: Method) => Method | undefined): StoreEngine {
  return new Proxy(engine, {
    get(target, key) {
      if (key !== "openDatabase") return Reflect.get(target, key, target);
      return async (...args: Parameters<StoreEngine["openDatabase"]>) => {
        const store: Store = await target.openDatabase(...args);
        return new Proxy(store, {
          get(s, k) {
            const value = Reflect.get(s, k, s);
            if (typeof value !== "function") return value;
            const own = value.bind(s) as Method;
            return replace(k, own) ?? own;
          },
        });
      };
    },
  });
}
