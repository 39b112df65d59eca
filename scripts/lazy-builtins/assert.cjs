// pino's streams (sonic-boom, thread-stream) require it when they load and call it when a stream is made.
"use strict";
module.exports = require("./lazy.cjs")("node:assert");
