import { DocDBError, echo } from "@docdb/core";
import { claudeCode } from "./claude-code.js";
import { claudeDesktop } from "./claude-desktop.js";
import { codex } from "./codex.js";
import { cursor } from "./cursor.js";
import { gemini } from "./gemini.js";
import type { ClientDef } from "./types.js";
import { vscode } from "./vscode.js";
import { windsurf } from "./windsurf.js";

export const CLIENTS: readonly ClientDef[] = [claudeCode, claudeDesktop, cursor, vscode, windsurf, codex, gemini];

export function findClient(name: string): ClientDef {
  const key = name.trim().toLowerCase();
  const client = CLIENTS.find((c) => c.id === key || c.aliases.includes(key));
  if (!client) throw new DocDBError("INVALID_REQUEST", `unknown client "${echo(name)}": use one of ${CLIENTS.map((c) => c.id).join(", ")}`);
  return client;
}
