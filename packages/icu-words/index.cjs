// Loads the addon built at install (build/Release/icu_words.node). `words` is undefined when it
// could not be built or loaded on this Node.js; `error` then says why.
let words;
let icuMajor;
let error;
try {
  const addon = require("./build/Release/icu_words.node");
  if (addon.icuMajor !== process.versions.icu.split(".")[0]) {
    throw new Error(`built for ICU ${addon.icuMajor}, this Node.js has ICU ${process.versions.icu}: reinstall @docdb/icu-words`);
  }
  words = addon.words;
  icuMajor = addon.icuMajor;
} catch (cause) {
  error = cause;
}
module.exports = { words, icuMajor, error };
