// Renders the evaluation sets into real documents and extracts them back, so that `docdb eval`
// can compare keyword nDCG@10 on extracted text with the plain-text runs: scifact as one PDF per
// document, jaquad as DOCX and as HTML (with navigation around the article). Writes BEIR-style
// folders (corpus.jsonl of the extracted text, queries.jsonl, qrels.tsv) under --out.
//
//   pnpm build && node scripts/render-eval-docs.mjs [--eval-dir ../shared/eval] [--out .tmp/eval-docs] [--limit N]
//     [--sets scifact-pdf,jaquad-docx,jaquad-html] [--keep-files]
//   pnpm -s docdb eval .tmp/eval-docs/scifact-pdf --mode keyword --json
import { copyFileSync, createReadStream, createWriteStream, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const evalDir = resolve(option("eval-dir", join(root, "..", "shared", "eval")));
const out = resolve(option("out", join(root, ".tmp", "eval-docs")));
const limit = Number(option("limit", "0")) || Number.POSITIVE_INFINITY;
const keepFiles = args.includes("--keep-files");
const only = option("sets", "").split(",").filter(Boolean);

const { extract } = await import(pathToFileURL(join(root, "packages/extract/dist/index.js")).href);
const { zipSync, strToU8 } = createRequire(join(root, "packages/extract/package.json"))("fflate");

const xml = (text) => text.replace(/[<>&"]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;" })[c]);
const paragraphs = (text) =>
  text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);

/** An HTML page: the article inside navigation, a sidebar and a footer that extraction should leave out. */
function renderHtml(doc) {
  const body = paragraphs(doc.text)
    .map((p) => `<p>${xml(p)}</p>`)
    .join("\n");
  return Buffer.from(
    `<!doctype html><html lang="ja"><head><meta charset="utf-8"><title>${xml(doc.title)}</title></head><body>
<header><nav><a href="/">ホーム</a> | <a href="/list">記事一覧</a> | <a href="/contact">お問い合わせ</a></nav></header>
<main><article>${body}</article></main>
<aside><h3>関連リンク</h3><ul><li><a href="/a">人気の記事</a></li><li><a href="/b">新着情報</a></li></ul></aside>
<footer><p>© 百科事典サイト 利用規約 プライバシー</p></footer></body></html>`,
  );
}

/** A DOCX: one paragraph per paragraph of text, the title in the core properties. */
function renderDocx(doc) {
  const runs = paragraphs(doc.text)
    .map((p) => `<w:p><w:r><w:t xml:space="preserve">${xml(p)}</w:t></w:r></w:p>`)
    .join("");
  const files = {
    "[Content_Types].xml": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/></Types>`,
    "_rels/.rels": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>`,
    "word/document.xml": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${runs}</w:body></w:document>`,
    "docProps/core.xml": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>${xml(doc.title)}</dc:title></cp:coreProperties>`,
  };
  return Buffer.from(zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, strToU8(v)]))));
}

// WinAnsi (CP1252) beyond Latin-1, for the PDF's standard fonts.
const CP1252 = {
  "€": 0x80,
  "‚": 0x82,
  ƒ: 0x83,
  "„": 0x84,
  "…": 0x85,
  "†": 0x86,
  "‡": 0x87,
  ˆ: 0x88,
  "‰": 0x89,
  Š: 0x8a,
  "‹": 0x8b,
  Œ: 0x8c,
  Ž: 0x8e,
  "‘": 0x91,
  "’": 0x92,
  "“": 0x93,
  "”": 0x94,
  "•": 0x95,
  "–": 0x96,
  "—": 0x97,
  "˜": 0x98,
  "™": 0x99,
  š: 0x9a,
  "›": 0x9b,
  œ: 0x9c,
  ž: 0x9e,
  Ÿ: 0x9f,
};

/** Text as WinAnsi bytes: Latin-1 and CP1252 as they are, other letters by their base letter, the rest "?". */
function winAnsi(text) {
  let outText = "";
  for (const ch of text) {
    const code = ch.codePointAt(0);
    if (code < 0x80 || (code >= 0xa0 && code <= 0xff)) outText += ch;
    else if (CP1252[ch]) outText += String.fromCharCode(CP1252[ch]);
    else {
      const base = ch.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
      outText += [...base].every((c) => c.codePointAt(0) < 0x100) && base ? base : "?";
    }
  }
  return outText.replace(/[\\()]/g, (c) => `\\${c}`);
}

/** Words wrapped into lines of at most `width` characters. */
function wrap(text, width) {
  const lines = [];
  for (const para of paragraphs(text)) {
    let line = "";
    for (const word of para.split(/\s+/)) {
      if (line && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    if (line) lines.push(line);
    lines.push("");
  }
  return lines;
}

/** A PDF in Helvetica: the text wrapped at 90 characters, 50 lines a page, the title in the Info dictionary. */
function renderPdf(doc) {
  const lines = wrap(doc.text, 90);
  const pages = [];
  for (let i = 0; i < lines.length; i += 50) pages.push(lines.slice(i, i + 50));
  const objects = ["", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"];
  const kids = [];
  for (const page of pages) {
    const stream = `BT /F1 10 Tf 12 TL 50 760 Td ${page.map((l, i) => `${i ? "T* " : ""}(${winAnsi(l)}) Tj`).join(" ")} ET`;
    objects.push(`<< /Length ${Buffer.byteLength(stream, "latin1")} >>\nstream\n${stream}\nendstream`);
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${objects.length} 0 R >>`,
    );
    kids.push(objects.length);
  }
  objects[0] = "<< /Type /Catalog /Pages 2 0 R >>";
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(" ")}] /Count ${kids.length} >>`;
  objects.push(`<< /Title (${winAnsi(doc.title)}) >>`);
  let pdf = "%PDF-1.4\n";
  const offsets = objects.map((body, i) => {
    const at = Buffer.byteLength(pdf, "latin1");
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return at;
  });
  const xref = Buffer.byteLength(pdf, "latin1");
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info ${objects.length} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, "latin1");
}

const RENDERS = [
  { set: "scifact", format: "pdf", render: renderPdf },
  { set: "jaquad", format: "docx", render: renderDocx },
  { set: "jaquad", format: "html", render: renderHtml },
];

for (const { set, format, render } of RENDERS.filter((r) => only.length === 0 || only.includes(`${r.set}-${r.format}`))) {
  const source = join(evalDir, set);
  const target = join(out, `${set}-${format}`);
  mkdirSync(target, { recursive: true });
  if (keepFiles) mkdirSync(join(target, "files"), { recursive: true });
  const corpus = createWriteStream(join(target, "corpus.jsonl"));
  const started = performance.now();
  let count = 0;
  let failed = 0;
  let bytes = 0;
  for await (const line of createInterface({ input: createReadStream(join(source, "corpus.jsonl")) })) {
    if (!line.trim()) continue;
    if (count >= limit) break;
    const doc = JSON.parse(line);
    const file = render(doc);
    bytes += file.length;
    if (keepFiles) writeFileSync(join(target, "files", `${doc.id}.${format}`), file);
    let text = "";
    let title = doc.title;
    try {
      const extracted = await extract({ bytes: new Uint8Array(file), format });
      text = extracted.text;
      title = extracted.title ?? "";
    } catch (error) {
      failed++;
      process.stderr.write(`${set}/${doc.id}.${format}: ${error.message}\n`);
    }
    if (!corpus.write(`${JSON.stringify({ id: doc.id, title, text })}\n`)) await new Promise((r) => corpus.once("drain", r));
    count++;
  }
  await new Promise((r) => corpus.end(r));
  for (const name of ["queries.jsonl", "qrels.tsv"]) copyFileSync(join(source, name), join(target, name));
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(
    `${set} as ${format}: ${count} documents (${(bytes / 1024 / 1024).toFixed(1)} MB), ${failed} failed, ${seconds.toFixed(1)} s (${(count / seconds).toFixed(0)} docs/s) → ${target}\n`,
  );
}
