// commander requires it when it loads and uses it only for executable subcommands, which docdb has none of.
"use strict";
module.exports = require("./lazy.cjs")("node:child_process");
