// `@docdb/mcp-server/ui`: the web page's server side, for `docdb ui` and for mounting /ui under
// another HTTP server (createUiHandler with the caller's own authentication).
export { defaultAssetsDir, type UiAssets, uiAssets } from "./ui/assets.js";
export { createUiHandler, isUiPath, tokenAuthenticator, UI_SECURITY_HEADERS, type UiHandler, type UiHandlerOptions } from "./ui/handler.js";
export { UI_ROUTES, type UiRoute } from "./ui/routes.js";
export { DEFAULT_UI_PORT, type ServeUiOptions, serveUi, type UiServerHandle } from "./ui/serve-ui.js";
