// The system's Chromium for the page's browser tests and bench (no browser download): found from
// DOCDB_CHROMIUM or PATH, launched through puppeteer-core; axe-core run inside a page.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, join } from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";

const NAMES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

/** The browser to drive, or undefined with the reason none was found. */
export function findChromium(): { path?: string; reason: string } {
  const configured = process.env.DOCDB_CHROMIUM;
  if (configured) {
    return existsSync(configured) ? { path: configured, reason: "" } : { reason: `DOCDB_CHROMIUM=${configured} does not exist` };
  }
  for (const dir of (process.env.PATH ?? "").split(delimiter).filter(Boolean)) {
    for (const name of NAMES) if (existsSync(join(dir, name))) return { path: join(dir, name), reason: "" };
  }
  return {
    reason: "no Chromium found: install it (Debian: apt-get install chromium) or set DOCDB_CHROMIUM to its path; .ci/run installs it",
  };
}

export async function launch(path: string): Promise<Browser> {
  return puppeteer.launch({
    executablePath: path,
    headless: true,
    // Root in a container has no user namespace for Chromium's sandbox.
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--lang=en-US", "--window-size=1280,900"],
    defaultViewport: { width: 1280, height: 900 },
    protocolTimeout: 180_000,
  });
}

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * axe-core's violations in the page as it is now. It is evaluated through the DevTools protocol,
 * which the page's CSP (no inline scripts) does not govern.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(c: unknown, o: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
}

/** Violations axe rates serious or critical, as readable lines. */
export function serious(violations: AxeViolation[]): string[] {
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target)).slice(0, 300)}`);
}
