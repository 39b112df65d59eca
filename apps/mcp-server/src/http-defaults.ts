/** Kept apart from http.ts so reading options does not load the HTTP transport (stdio starts faster). */
export const DEFAULT_HTTP_HOST = "127.0.0.1";
export const DEFAULT_HTTP_PORT = 7411;
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
export const DEFAULT_MAX_SESSIONS = 100;
/** A session unused this long is closed (and makes room for a new one). */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000;
