// @docdb/extract: bytes of a document in, Markdown text with locators out.
export { detectFormat, extract } from "./extract.js";
export * from "./types.js";
export { readZip } from "./zip.js";
