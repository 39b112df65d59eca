// Node built-ins that bundled packages require when they load but use only later, as the
// programs' bundles see them (aliases in scripts/tsup-bundle.ts): a stand-in that loads the real
// module on its first call or property read. Each costs a program 2-6 ms of start-up otherwise
// (issue 12). The real module is required through createRequire, which the aliases do not touch.
"use strict";
const { createRequire } = require("node:module");

const load = createRequire(__filename);

module.exports = function lazyBuiltin(name) {
  let real;
  const get = () => {
    real ??= load(name);
    return real;
  };
  return new Proxy(function builtin() {}, {
    apply: (_target, self, args) => Reflect.apply(get(), self, args),
    get: (_target, key) => get()[key],
    has: (_target, key) => key in get(),
  });
};
