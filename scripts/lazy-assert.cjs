// node:assert as the programs' bundles see it (scripts/tsup-bundle.ts aliases "assert" here):
// loaded on the first call. pino's streams (sonic-boom, thread-stream) require it when they
// load and call it only when a stream is made or written; loading it costs a server ~5 ms of
// start-up (issue 12). A function that forwards calls and property reads to the real module.
"use strict";
let real;
const load = () => {
  real ??= require("node:assert");
  return real;
};
module.exports = new Proxy(function assert() {}, {
  apply: (_target, self, args) => Reflect.apply(load(), self, args),
  get: (_target, key) => load()[key],
  has: (_target, key) => key in load(),
});
