// `@docdb/mcp-server/serve`: what a program needs to run the server, without the rest of the
// library. The package's main entry also exports the HTTP transport (and with it the SDK's
// Streamable HTTP server, ~40 ms to load), which a stdio server never uses; runServer loads
// it only for --http.
export { type ServeOptions, withConfigFiles } from "./options.js";
export { docdbTools, runServer } from "./run.js";
export { readToolDescriptors, TOOL_DESCRIPTORS_FILE, type ToolDescriptors, toolDescriptorsBeside } from "./tool-descriptors.js";
