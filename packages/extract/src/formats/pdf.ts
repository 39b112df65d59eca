// PDF → Markdown with one segment per page, through pdfjs-dist (its legacy build, which runs on
// Node 20), reading CJK fonts through the CMaps it ships. Pages are read and released one by one.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { ExtractError, type Extracted, type ExtractLimits, type Extractor, type Segment } from "../types.js";
import { layoutPage, SizeCensus, type TextPiece } from "./pdf-layout.js";

type Pdfjs = typeof import("pdfjs-dist/legacy/build/pdf.mjs");
type PdfDocument = Awaited<ReturnType<Pdfjs["getDocument"]>["promise"]>;

let library: Promise<Pdfjs> | undefined;
/** pdfjs-dist's folder, where its `cmaps/` and `standard_fonts/` are. */
let libraryRoot: string | undefined;

function loadPdfjs(): Promise<Pdfjs> {
  libraryRoot ??= dirname(createRequire(import.meta.url).resolve("pdfjs-dist/package.json"));
  library ??= import("pdfjs-dist/legacy/build/pdf.mjs");
  return library;
}

export const extractor: Extractor = {
  formats: ["pdf"],
  async extract(bytes, input) {
    const pdfjs = await loadPdfjs();
    const root = libraryRoot as string;
    // pdfjs takes over (detaches) the buffer it is given: hand it a copy, never the caller's bytes.
    const task = pdfjs.getDocument({
      data: bytes.slice(),
      cMapUrl: join(root, "cmaps/"),
      cMapPacked: true,
      standardFontDataUrl: join(root, "standard_fonts/"),
      useSystemFonts: false,
      disableFontFace: true,
      isEvalSupported: false,
      verbosity: 0,
    });
    let doc: PdfDocument | undefined;
    try {
      doc = await task.promise.catch((error: unknown) => {
        throw openError(error);
      });
      return await readDocument(pdfjs, doc, input.limits);
    } finally {
      await (doc ?? task).destroy().catch(() => undefined);
    }
  },
};

async function readDocument(pdfjs: Pdfjs, doc: PdfDocument, limits: ExtractLimits): Promise<Extracted> {
  const parts: string[] = [];
  const segments: Segment[] = [];
  const warnings: string[] = [];
  const blank: number[] = [];
  const census = new SizeCensus();
  let length = 0;
  for (let number = 1; number <= doc.numPages; number++) {
    const text = await readPage(doc, number, census);
    if (text === "") {
      blank.push(number);
      continue;
    }
    const start = length === 0 ? 0 : length + 2;
    length = start + text.length;
    if (length > limits.maxTextChars) {
      throw new ExtractError(
        "limit_exceeded",
        `the PDF's text passes ${limits.maxTextChars} characters (at page ${number} of ${doc.numPages})`,
      );
    }
    parts.push(text);
    segments.push({ start, end: length, locator: { page: number } });
  }
  if (segments.length === 0) {
    throw new ExtractError(
      "no_text_layer",
      `the PDF's ${doc.numPages === 1 ? "page has" : `${doc.numPages} pages have`} no text layer — OCR it first (it is likely a scan or made of images)`,
    );
  }
  if (blank.length) {
    const which = blank.length === 1 ? `page ${blank[0]} has` : `pages ${describePages(blank)} have`;
    warnings.push(
      `${which} no text layer (images or scans?) and ${blank.length === 1 ? "was" : "were"} left out; OCR them to include their text`,
    );
  }
  const { title, metadata } = await readInfo(pdfjs, doc);
  metadata.pages = doc.numPages;
  return { format: "pdf", text: parts.join("\n\n"), ...(title ? { title } : {}), metadata, segments, warnings };
}

/** One page's Markdown; the page's resources are released before returning. */
async function readPage(doc: PdfDocument, number: number, census: SizeCensus): Promise<string> {
  let page: Awaited<ReturnType<PdfDocument["getPage"]>> | undefined;
  try {
    page = await doc.getPage(number);
    const content = await page.getTextContent();
    const pieces: TextPiece[] = [];
    for (const item of content.items) {
      if (!("str" in item) || item.str === "") continue;
      const [, , c = 0, d = 0, x = 0, y = 0] = item.transform as number[];
      pieces.push({ str: item.str, x, y, width: item.width, size: Math.hypot(c, d) || item.height });
    }
    census.add(pieces);
    return layoutPage(pieces, census.body());
  } catch (error) {
    if (error instanceof ExtractError) throw error;
    throw new ExtractError(
      "corrupt",
      `page ${number} of the PDF is damaged and cannot be read (${reason(error)}); repair or re-export the PDF`,
    );
  } finally {
    page?.cleanup();
  }
}

async function readInfo(pdfjs: Pdfjs, doc: PdfDocument): Promise<{ title?: string; metadata: Record<string, string | number> }> {
  const metadata: Record<string, string | number> = {};
  const found = await doc.getMetadata().catch(() => undefined);
  const info = (found?.info ?? {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value.replace(/\s+/g, " ").trim() : undefined);
  const title = text(info.Title) ?? text(found?.metadata?.get("dc:title"));
  const author = text(info.Author) ?? text(found?.metadata?.get("dc:creator"));
  if (author) metadata.author = author;
  const subject = text(info.Subject);
  if (subject) metadata.subject = subject;
  for (const [key, field] of [
    ["CreationDate", "created"],
    ["ModDate", "modified"],
  ] as const) {
    const raw = text(info[key]);
    const date = raw ? pdfjs.PDFDateString.toDateObject(raw) : null;
    if (date && !Number.isNaN(date.getTime())) metadata[field] = date.toISOString();
  }
  return title ? { title, metadata } : { metadata };
}

/** What opening the file failed on, said so a person can act on it. */
function openError(error: unknown): ExtractError {
  const name = (error as { name?: string } | undefined)?.name;
  if (name === "PasswordException") {
    return new ExtractError("encrypted", "the PDF is password-protected; remove the password and import it again");
  }
  if (name === "InvalidPDFException") {
    return new ExtractError("corrupt", `the file is not a readable PDF (${reason(error)}): it is damaged, truncated or not a PDF at all`);
  }
  return new ExtractError("corrupt", `the PDF cannot be opened (${reason(error)}); it may be damaged — repair or re-export it`);
}

function reason(error: unknown): string {
  return String((error as Error | undefined)?.message ?? error).slice(0, 200);
}

/** "3", "2, 5 and 7", or "2, 3, 4 … (40 in all)". */
function describePages(pages: number[]): string {
  if (pages.length > 10) return `${pages.slice(0, 10).join(", ")} … (${pages.length} in all)`;
  return pages.length === 1 ? String(pages[0]) : `${pages.slice(0, -1).join(", ")} and ${pages.at(-1)}`;
}
