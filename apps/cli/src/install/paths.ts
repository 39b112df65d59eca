import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import type { InstallContext } from "./types.js";

function set(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== "" ? value : undefined;
}

export function installContext(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): InstallContext {
  const docdbHome = set(env.DOCDB_HOME);
  return { home: docdbHome ?? homedir(), project: cwd, env, platform: process.platform, isolated: docdbHome !== undefined };
}

/** A client variable such as CODEX_HOME, unless DOCDB_HOME isolates the install. */
export function clientVar(ctx: InstallContext, name: string): string | undefined {
  if (ctx.isolated) return undefined;
  const value = set(ctx.env[name]);
  return value && isAbsolute(value) ? value : undefined;
}

/** The OS folder for application settings: %APPDATA%, ~/Library/Application Support, $XDG_CONFIG_HOME or ~/.config. */
export function appConfigDir(ctx: InstallContext): string {
  if (ctx.platform === "win32") return clientVar(ctx, "APPDATA") ?? join(ctx.home, "AppData", "Roaming");
  if (ctx.platform === "darwin") return join(ctx.home, "Library", "Application Support");
  return clientVar(ctx, "XDG_CONFIG_HOME") ?? join(ctx.home, ".config");
}
