#!/usr/bin/env node
// Renders the evaluation sets into folders of real documents, one file per corpus entry named
// `<corpus id>.<ext>`, for `docdb eval <set> --documents <folder>` (extraction fidelity):
// scifact as PDFs, jaquad as DOCX and as HTML pages with navigation, sidebar and footer.
//
//   node scripts/render-eval-files.mjs [--eval-dir ../shared/eval] [--out .tmp/eval-files]
//     [--sets scifact-pdf,jaquad-docx,jaquad-html] [--limit N]
//   Rendered only when named in --sets: jaquad-pdf (Japanese in the CID font), and scifact-md /
//   jaquad-md, the text as Markdown under the title as a heading: the structure of the rendered
//   files without extraction, to tell structure effects from extraction effects.
//   pnpm -s docdb eval ../shared/eval/scifact --mode keyword --documents .tmp/eval-files/scifact-pdf
import { createReadStream, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { loadFixtureGenerators } from "./fixture-generators.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const evalDir = resolve(option("eval-dir", join(root, "..", "shared", "eval")));
const out = resolve(option("out", join(root, ".tmp", "eval-files")));
const limit = Number(option("limit", "0")) || Number.POSITIVE_INFINITY;
const only = option("sets", "").split(",").filter(Boolean);

const { makePdf, makeDocx, htmlPageSource, encodeText } = await loadFixtureGenerators();

/** The corpus entry's paragraphs (blank-line separated), as docdb's plain-text eval reads it. */
const paragraphs = (text) =>
  text
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s*\n\s*/g, " ").trim())
    .filter(Boolean);

/**
 * A PDF: the title as the document's Info title and as an 18-point heading line, then the text
 * in 11-point Helvetica, wrapped to the page and continued on new pages (characters outside
 * WinAnsi, such as Greek letters, in the Adobe-Japan1 CID font).
 */
const renderPdf = (doc) => {
  const lines = doc.title ? [{ text: doc.title, size: 18 }, ""] : [];
  for (const p of paragraphs(doc.text)) lines.push(p, "");
  return makePdf({ title: doc.title || undefined, pages: [{ lines }] });
};

/** A DOCX: the title in the core properties and as a Heading 1, a paragraph per paragraph. */
const renderDocx = (doc) =>
  makeDocx({ title: doc.title || undefined, sections: [{ heading: doc.title, paragraphs: paragraphs(doc.text) }] });

/** An HTML page: <title>, the article (h1 title, paragraphs) inside header navigation, a sidebar, a footer and a cookie banner. */
const renderHtml = (doc) =>
  encodeText(
    htmlPageSource({ title: doc.title, sections: [{ heading: "", paragraphs: paragraphs(doc.text) }] }).replace(/<h2><\/h2>\n?/, ""),
    "utf-8",
  );

/** Markdown: the title as a `#` heading, then the paragraphs (no extraction needed). */
const renderMarkdown = (doc) => Buffer.from(`${doc.title ? `# ${doc.title}\n\n` : ""}${paragraphs(doc.text).join("\n\n")}\n`);

const RENDERS = [
  { set: "scifact", format: "pdf", render: renderPdf },
  { set: "jaquad", format: "docx", render: renderDocx },
  { set: "jaquad", format: "html", render: renderHtml },
  { set: "jaquad", format: "pdf", render: renderPdf, extra: true },
  { set: "scifact", format: "md", render: renderMarkdown, extra: true },
  { set: "jaquad", format: "md", render: renderMarkdown, extra: true },
];

for (const { set, format, render } of RENDERS.filter((r) => (only.length === 0 ? !r.extra : only.includes(`${r.set}-${r.format}`)))) {
  const target = join(out, `${set}-${format}`);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  const started = performance.now();
  let count = 0;
  let skipped = 0;
  let bytes = 0;
  for await (const line of createInterface({
    input: createReadStream(join(evalDir, set, "corpus.jsonl")),
    crlfDelay: Number.POSITIVE_INFINITY,
  })) {
    if (!line.trim()) continue;
    if (count >= limit) break;
    const raw = JSON.parse(line);
    const id = String(raw._id ?? raw.id);
    const title = typeof raw.title === "string" ? raw.title : "";
    // As the plain-text eval does: a title-only entry's title is its text; nothing at all is skipped.
    const text = raw.text.trim() !== "" ? raw.text : title;
    if (text.trim() === "") {
      skipped++;
      continue;
    }
    if (/[/\\]|^\.|\0/.test(id)) throw new Error(`${set}: corpus id ${JSON.stringify(id)} cannot be a file name`);
    const file = render({ id, title, text });
    writeFileSync(join(target, `${id}.${format}`), file);
    bytes += file.length;
    count++;
  }
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(
    `${set} as ${format}: ${count} files (${(bytes / 1024 / 1024).toFixed(1)} MB)${skipped ? `, ${skipped} empty entries skipped` : ""}, ${seconds.toFixed(1)} s → ${target}\n`,
  );
}
