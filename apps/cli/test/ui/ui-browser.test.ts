// The built page in a real Chromium (the system's, through puppeteer-core) against the built
// `docdb ui` with a real database: token, search in each mode, a filter, a document, a folder
// import to 100%, delete with confirmation, memory, Japanese, and axe-core on every view.
// Screenshots go to .tmp/ui-screenshots/. Skipped, saying why, when no Chromium is found.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyFixture } from "../../../../test/support/collection-fixtures.js";
import { type FakeOpenAI, startFakeOpenAI } from "../../../../test/support/fake-openai.js";
import { tinyPdf } from "../../../../test/support/tiny-pdf.js";
import { runCli } from "../run-cli.js";
import { axeViolations, findChromium, launch, serious } from "./browser.js";
import { startUi, TOKEN, type UiProcess } from "./ui-server.js";

const SHOTS = fileURLToPath(new URL("../../../../.tmp/ui-screenshots/", import.meta.url));
const chromium = findChromium();
if (!chromium.path) console.warn(`skipping the page's browser tests: ${chromium.reason}`);

const DOCS = [
  {
    title: "Tokyo",
    text: "# Tokyo\n\nTokyo is the capital of Japan and its largest city. The Tokyo metropolis has about 14 million people.",
    metadata: { lang: "en" },
  },
  {
    title: "東京",
    text: "# 東京\n\n東京は日本の首都で、人口は約1400万人です。東京都は23の特別区と多摩地域からなります。",
    metadata: { lang: "ja" },
  },
  {
    title: "Rhine",
    text: "# Rhine\n\nThe Rhine flows from the Swiss Alps into the North Sea, past Basel, Cologne and Rotterdam.",
    metadata: { lang: "en" },
  },
  {
    title: "Kyoto",
    text: "# Kyoto\n\nKyoto was the capital of Japan for more than a thousand years, until Tokyo took its place in 1869.",
    metadata: { lang: "en" },
  },
  {
    title: "Rotating API tokens",
    text: [
      "# Rotating API tokens",
      "",
      "## Why rotate",
      "",
      "A token that lives forever is a token that leaks eventually. Rotate every token at least every 90 days, and at once when someone who held it leaves the team or a laptop is lost. Rotation is cheap when it is routine: the service accepts two tokens during the overlap, so no client breaks.",
      "",
      "## How to rotate a token",
      "",
      "Create the new token with `tokens create --name ci-2026`, store it in the secret manager, and deploy the clients that use it. Watch the access log until no request carries the old token for a full day. The dashboard shows the last use of every token, so stragglers are easy to find.",
      "",
      "## Revoking the old token",
      "",
      "Revoke the old token with `tokens revoke ci-2025`. Revocation takes effect within a minute on every server. A revoked token answers 401 with the reason, so a forgotten client fails loudly instead of silently losing data. Keep the revocation in the change log with the date and the reason.",
    ].join("\n"),
    metadata: { lang: "en", kind: "runbook" },
  },
];

describe.skipIf(!chromium.path)("the page in Chromium", () => {
  let dir: string;
  let openai: FakeOpenAI;
  let ui: UiProcess;
  let browser: Browser;
  let page: Page;
  const cspErrors: string[] = [];

  async function shot(name: string): Promise<void> {
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  }
  async function checkAxe(view: string): Promise<void> {
    expect(serious(await axeViolations(page)), `axe on ${view}`).toEqual([]);
  }
  async function go(hash: string, selector: string): Promise<void> {
    await page.evaluate((h) => {
      location.hash = h;
    }, hash);
    await page.waitForSelector(selector);
  }
  async function search(query: string, mode: string): Promise<string[]> {
    await go("#/search", "#query");
    await page.$eval("#query", (el) => {
      (el as HTMLInputElement).value = "";
    });
    await page.type("#query", query);
    await page.select("#mode", mode);
    const before = await page.$eval("#search", (el) => Number(el.getAttribute("data-answered")));
    // Enter in the box submits: the form works from the keyboard.
    await page.focus("#query");
    await page.keyboard.press("Enter");
    await page.waitForFunction((n) => Number(document.querySelector("#search")?.getAttribute("data-answered")) > n, {}, before);
    return page.$$eval(".result h3 a", (links) => links.map((a) => a.textContent ?? ""));
  }

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    dir = mkdtempSync(join(tmpdir(), "docdb-ui-browser-"));
    openai = await startFakeOpenAI({ dimensions: 32 });
    const env = { DOCDB_EMBEDDING: "openai", OPENAI_API_KEY: "sk-test", DOCDB_EMBEDDING_DIMENSIONS: "32", OPENAI_BASE_URL: openai.url };
    ui = await startUi(join(dir, "data"), env);
    for (const doc of DOCS) expect((await ui.api("POST", "/databases/vectors/documents", doc)).status).toBe(201);
    for (const q of ["How do I roll back a deploy?", "How can I roll back the deploy?"]) {
      const r = await runCli(
        ["--data-dir", join(dir, "data"), "qa", "add", "-t", "Deploy", "-q", q, "-a", "Run deploy rollback --to previous."],
        { env },
      );
      expect(r.code, r.stderr).toBe(0);
    }
    // A PDF whose second page holds the word searched for: its passage shows "page 2".
    const pdf = join(dir, "harbour.pdf");
    writeFileSync(
      pdf,
      tinyPdf([["Harbour rules for the winter season."], ["Lighthouse keepers log the fog at dawn."]], { title: "Harbour rules" }),
    );
    const inserted = await runCli(["--data-dir", join(dir, "data"), "insert", pdf], { env });
    expect(inserted.code, inserted.stderr).toBe(0);
    browser = await launch(chromium.path as string);
    page = await browser.newPage();
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) cspErrors.push(message.text());
    });
    page.setDefaultTimeout(60_000);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await ui?.stop();
    await openai?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("asks for the token, keeps it in session storage, and sends it as a header", async () => {
    await page.goto(`${ui.base}/ui/`);
    await page.waitForSelector("#token");
    await checkAxe("the token form");
    await shot("01-token");
    await page.type("#token", TOKEN);
    await page.click("button[type=submit]");
    await page.waitForSelector("#query");
    expect(await page.evaluate(() => sessionStorage.getItem("docdb.token"))).toBe(TOKEN);
    expect(await page.cookies()).toEqual([]);
  }, 120_000);

  it("searches in each mode, marking the query's words, with ranks and the query time", async () => {
    for (const mode of ["keyword", "vector", "hybrid"]) {
      const titles = await search("capital of Japan", mode);
      expect(titles.length, mode).toBeGreaterThan(0);
      expect(await page.$eval("#search-took", (el) => el.textContent)).toMatch(/results in [\d.]+ ms/);
      if (mode !== "vector") {
        const marks = await page.$$eval(".result mark", (ms) => ms.map((m) => m.textContent?.toLowerCase()));
        expect(marks).toEqual(expect.arrayContaining(["capital", "japan"]));
      }
      const why = await page.$eval(".result .why", (el) => el.textContent ?? "");
      expect(why).toContain("score");
      await shot(`02-search-${mode}`);
    }
    expect(await page.$eval(".result .why", (el) => el.textContent ?? "")).toContain("fused");
    await checkAxe("search results");
  }, 120_000);

  it("shows where in a PDF a passage was found: its page", async () => {
    expect(await search("lighthouse fog", "keyword")).toEqual(["Harbour rules"]);
    expect(await page.$eval(".result .where", (el) => el.textContent ?? "")).toContain("page 2");
  }, 120_000);

  it("applies a filter built with the filter builder", async () => {
    await go("#/search", "#query");
    await page.click("details summary");
    await page.type(".filter-field", "lang");
    await page.type(".filter-value", "ja");
    expect(await page.$eval("#filter-json", (el) => (el as HTMLTextAreaElement).value)).toBe('{"lang":{"$eq":"ja"}}');
    const titles = await search("東京 Tokyo capital", "keyword");
    expect(titles).toEqual(["東京"]);
    await shot("03-search-filter");
  }, 120_000);

  it("opens a document at the passage, with its chunks and their boundaries", async () => {
    await page.evaluate(() => {
      const box = document.querySelector<HTMLTextAreaElement>("#filter-json");
      if (box) box.value = "";
    });
    await page.reload();
    await search("revoke the old token", "keyword");
    await page.click(".result h3 a");
    await page.waitForSelector(".chunk.target");
    expect(await page.$eval("#doc-title", (el) => el.textContent)).toBe("Rotating API tokens");
    expect(await page.$$eval(".chunk", (chunks) => chunks.length)).toBeGreaterThan(1);
    expect(await page.$eval(".chunk.target", (el) => el.textContent ?? "")).toContain("Revoke the old token");
    const boundary = await page.$eval(".chunk .boundary", (el) => el.textContent ?? "");
    expect(boundary).toMatch(/characters 0–\d+/);
    expect(boundary).toContain("embedded");
    await checkAxe("a document");
    await shot("04-document");
  }, 120_000);

  it("deletes a document only after confirmation", async () => {
    await page.click("#delete-document");
    await page.waitForSelector("dialog.confirm[open]");
    await checkAxe("the confirmation dialog");
    await shot("05-delete-confirm");
    await page.click("dialog.confirm button.cancel");
    await page.waitForSelector("dialog.confirm", { hidden: true });
    expect((await ui.api<{ total: number }>("GET", "/databases/vectors/documents")).body.total).toBe(DOCS.length + 1); // and the PDF
    await page.click("#delete-document");
    await page.waitForSelector("dialog.confirm[open]");
    await page.click("dialog.confirm button.confirm-delete");
    await page.waitForSelector("#deleted-note");
    expect((await ui.api<{ total: number }>("GET", "/databases/vectors/documents")).body.total).toBe(DOCS.length);
  }, 120_000);

  it("imports a folder with the progress bar reaching 100%", async () => {
    const folder = copyFixture("ja-docs");
    await go("#/tend", "#import-name");
    await page.type("#import-name", "guide");
    await page.type("#import-folder", folder);
    await page.type("#import-description", "社内APIガイド (Japanese API guide)");
    await page.click("#run-import");
    await page.waitForFunction(() => document.querySelector("[data-testid=import-progress-percent]")?.textContent === "100%", {
      timeout: 120_000,
    });
    expect(await page.$eval("#import-progress", (el) => (el as HTMLProgressElement).value)).toBe(100);
    expect(await page.$eval(".progress .detail", (el) => el.textContent ?? "")).toMatch(/Imported: \d+ added/);
    await checkAxe("tend");
    await shot("06-import");
    const collections = await ui.api<{ collections: { name: string; documents: number }[] }>("GET", "/databases/vectors/collections");
    expect(collections.body.collections[0]?.documents).toBeGreaterThan(0);
    rmSync(folder, { recursive: true, force: true });
  }, 180_000);

  it("browses databases, collections and sortable documents", async () => {
    await go("#/browse", "#documents tbody tr");
    expect(await page.$eval("#databases", (el) => el.textContent ?? "")).toContain("sqlite");
    expect(await page.$eval("#collections", (el) => el.textContent ?? "")).toContain("guide");
    await page.click("#documents th:first-child button");
    await page.waitForSelector('#documents th[aria-sort="ascending"]');
    await page.type("#documents-filter", '{"lang":"ja"}');
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.querySelectorAll("#documents tbody tr").length === 1);
    expect(await page.$eval("#documents tbody", (el) => el.textContent ?? "")).toContain("東京");
    await checkAxe("browse");
    await shot("07-browse");
  }, 120_000);

  it("shows agent memory", async () => {
    await go("#/memory", "#topics tbody tr");
    expect(await page.$eval("#topics", (el) => el.textContent ?? "")).toContain("Deploy");
    expect(await page.$$eval(".qa > li", (items) => items.length)).toBe(2);
    await checkAxe("memory");
    await shot("08-memory");
  }, 120_000);

  it("speaks Japanese to a Japanese browser, with strict line breaking", async () => {
    const ja = await browser.newPage();
    await ja.evaluateOnNewDocument(() => {
      Object.defineProperty(navigator, "language", { get: () => "ja-JP" });
      Object.defineProperty(navigator, "languages", { get: () => ["ja-JP", "ja"] });
      sessionStorage.setItem("docdb.token", "ui-test-token");
    });
    await ja.goto(`${ui.base}/ui/#/search`);
    await ja.waitForSelector("#query");
    expect(await ja.$eval("html", (el) => el.lang)).toBe("ja");
    expect(await ja.$eval("nav", (el) => el.textContent ?? "")).toContain("検索");
    expect(await ja.$eval("main", (el) => getComputedStyle(el).lineBreak)).toBe("strict");
    await ja.type("#query", "首都");
    await ja.click("#run-search");
    await ja.waitForSelector("#search-took");
    expect(await ja.$$eval(".result mark", (ms) => ms.map((m) => m.textContent))).toContain("首都");
    await ja.screenshot({ path: join(SHOTS, "09-search-ja.png"), fullPage: true });
    const violations = serious(await axeViolations(ja));
    await ja.close();
    expect(violations).toEqual([]);
  }, 120_000);

  it("ran with no Content-Security-Policy violation", () => {
    expect(cspErrors).toEqual([]);
  });
});
