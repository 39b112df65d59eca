// Builds the addon at install time with node-gyp (which npm and pnpm put on a script's PATH).
// A failed build is not a failed install: docdb's analyzer then uses Intl.Segmenter, which
// gives the same words more slowly. Set DOCDB_ICU_WORDS_STRICT=1 to make a failure stop.
const { spawnSync } = require("node:child_process");

const { existsSync } = require("node:fs");
const { dirname, join } = require("node:path");

// npm and pnpm name their node-gyp in npm_config_node_gyp; run by hand, npm's own beside this Node.
const npmGyp = join(dirname(process.execPath), "../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js");
const gyp = process.env.npm_config_node_gyp || (existsSync(npmGyp) ? npmGyp : undefined);
const [command, args] = gyp ? [process.execPath, [gyp, "rebuild"]] : ["node-gyp", ["rebuild"]];
const result = spawnSync(command, args, { stdio: "inherit", shell: !gyp && process.platform === "win32" });
if (result.status !== 0) {
  const why = result.error ? result.error.message : `node-gyp exited with ${result.status}`;
  process.stderr.write(
    `@docdb/icu-words: the addon was not built (${why}); docdb will segment words with Intl.Segmenter, slower, same words.\n`,
  );
  if (process.env.DOCDB_ICU_WORDS_STRICT === "1") process.exit(1);
}
