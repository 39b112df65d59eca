// A seeded folder of mixed documents for `pnpm bench:import -- --mixed`: PDF, DOCX, PPTX, XLSX,
// HTML, CSV and Markdown in the proportions below, Japanese and English text from data.mjs.
// "Pages" are what a person would page through: PDF pages, slides, sheets, and one per other file.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadFixtureGenerators } from "../fixture-generators.mjs";
import { documents, seeded } from "./data.mjs";

/** Share of each format in the folder (sums to 1). */
export const MIXED_SHARES = { pdf: 0.25, docx: 0.15, pptx: 0.1, xlsx: 0.1, html: 0.15, csv: 0.1, md: 0.15 };

/** Pages of a PDF as written by the fixture generator (one uncompressed /Type /Page object each). */
function pdfPages(bytes) {
  return (
    Buffer.from(bytes)
      .toString("latin1")
      .match(/\/Type \/Page(?![s\w])/g) ?? []
  ).length;
}

/**
 * Writes `files` documents into `dir` (in subfolders by format). Returns counts: files, bytes,
 * pages, and per format { files, pages, bytes }.
 */
export async function generateMixedDocuments(dir, { files = 200, seed = 1 } = {}) {
  const { makePdf, makeDocx, makePptx, makeXlsx, makeHtmlPage } = await loadFixtureGenerators();
  const random = seeded(seed);
  const texts = documents({ seed: seed + 10, length: 1800 });
  const text = () => texts.next().value;
  const between = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
  const paragraphsOf = (n) => Array.from({ length: n }, () => text().text);
  const sentences = (t) => t.split(/(?<=[。.])\s*/).filter(Boolean);

  const formats = Object.entries(MIXED_SHARES).flatMap(([format, share]) => Array(Math.round(share * files)).fill(format));
  while (formats.length < files) formats.push("md");
  formats.length = files;
  const byFormat = {};
  let bytes = 0;
  let pages = 0;
  for (const [i, format] of formats.entries()) {
    const doc = text();
    let data;
    let filePages = 1;
    if (format === "pdf") {
      // 2 to 12 pages: a heading, then paragraphs of about 1,800 characters (two to a page).
      const lines = [{ text: doc.title, size: 18 }, ""];
      for (const p of paragraphsOf(between(3, 22))) lines.push(p, "");
      data = makePdf({ title: doc.title, author: "bench", pages: [{ lines }] });
      filePages = pdfPages(data);
    } else if (format === "docx") {
      const sections = Array.from({ length: between(2, 6) }, () => ({ heading: text().title, paragraphs: paragraphsOf(between(1, 3)) }));
      sections[0].table = [
        ["name", "value", "note"],
        ...Array.from({ length: 5 }, (_, r) => [`row ${r}`, String(between(1, 999)), text().title]),
      ];
      data = makeDocx({ title: doc.title, sections });
    } else if (format === "pptx") {
      const slides = Array.from({ length: between(5, 15) }, () => ({
        title: text().title,
        bullets: sentences(text().text).slice(0, 5),
        notes: text().title,
      }));
      data = makePptx({ title: doc.title, slides });
      filePages = slides.length;
    } else if (format === "xlsx") {
      const sheets = Array.from({ length: between(1, 3) }, (_, s) => ({
        name: `Sheet${s + 1}`,
        rows: [
          ["id", "item", "amount", "comment"],
          ...Array.from({ length: between(20, 200) }, (_, r) => [r + 1, text().title, between(1, 99999), sentences(doc.text)[r % 5] ?? ""]),
        ],
      }));
      data = makeXlsx({ title: doc.title, sheets });
      filePages = sheets.length;
    } else if (format === "html") {
      const sections = Array.from({ length: between(2, 5) }, () => ({ heading: text().title, paragraphs: paragraphsOf(between(1, 2)) }));
      data = makeHtmlPage({ title: doc.title, sections });
    } else if (format === "csv") {
      const rows = [
        ["id", "item", "amount", "comment"],
        ...Array.from({ length: between(50, 400) }, (_, r) => [
          r + 1,
          text().title,
          between(1, 99999),
          `"${(sentences(doc.text)[r % 5] ?? "").replaceAll('"', '""')}"`,
        ]),
      ];
      data = Buffer.from(`${rows.map((r) => r.join(",")).join("\n")}\n`);
    } else {
      data = Buffer.from(`# ${doc.title}\n\n${paragraphsOf(between(2, 6)).join("\n\n")}\n`);
    }
    const folder = join(dir, format);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `doc${String(i).padStart(4, "0")}.${format}`), data);
    byFormat[format] ??= { files: 0, pages: 0, bytes: 0 };
    const entry = byFormat[format];
    entry.files++;
    entry.pages += filePages;
    entry.bytes += data.length;
    bytes += data.length;
    pages += filePages;
  }
  return { files: formats.length, bytes, pages, byFormat };
}
