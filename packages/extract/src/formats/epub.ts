// EPUB 2/3: META-INF/container.xml → the OPF package → spine order; each XHTML chapter becomes
// Markdown (the whole body, through the HTML path) and one Segment with its chapter as the section.
import { Parser } from "htmlparser2";
import { ExtractError, type Extractor, type Segment } from "../types.js";
import { readZip } from "../zip.js";
import { htmlDocumentToMarkdown } from "./html.js";
import { decodeMarkup } from "./html-charset.js";
import { capDepth, MAX_HTML_DEPTH } from "./html-markdown.js";

const TEXT_ENTRY = /(^mimetype$|\.(xml|opf|ncx|xhtml|html|htm|xht)$)/i;
const FONT_OBFUSCATION = new Set(["http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"]);

interface ManifestItem {
  href: string;
  mediaType: string;
  properties: string;
}

export const extractor: Extractor = {
  formats: ["epub"],
  async extract(bytes, input) {
    const files = readZip(bytes, input.limits, (name) => TEXT_ENTRY.test(name));
    const text = (path: string): string | undefined => {
      const data = files.get(path);
      return data ? refuseEntities(decodeMarkup(data).text, path) : undefined;
    };
    const container = text("META-INF/container.xml");
    if (!container) throw new ExtractError("corrupt", "not an EPUB: META-INF/container.xml is missing");
    const opfPath = firstAttribute(container, "rootfile", "full-path");
    const opf = opfPath ? text(opfPath) : undefined;
    if (!opfPath || !opf) throw new ExtractError("corrupt", "not an EPUB: the package document (.opf) named by container.xml is missing");
    const pack = readPackage(opf, directoryOf(opfPath));
    const encrypted = encryptedPaths(text("META-INF/encryption.xml"));
    const spine = pack.spine.filter((item) => /x?html/i.test(item.mediaType));
    if (spine.length === 0) throw new ExtractError("corrupt", "the EPUB's spine lists no XHTML chapters");
    if (spine.some((item) => encrypted.has(item.href))) {
      throw new ExtractError(
        "encrypted",
        "the EPUB's chapters are encrypted (DRM); remove the protection with the tool that bought it, then import again",
      );
    }
    const labels = tocLabels(pack, text);
    const warnings: string[] = [];
    const segments: Segment[] = [];
    const parts: string[] = [];
    let length = 0;
    for (const item of spine) {
      const chapterHtml = text(item.href);
      if (chapterHtml === undefined) {
        warnings.push(`chapter ${item.href} is listed in the spine but missing from the file`);
        continue;
      }
      const chapter = htmlDocumentToMarkdown(chapterHtml, { mainContent: false });
      for (const warning of chapter.warnings) warnings.push(`${item.href}: ${warning}`);
      if (!chapter.markdown.trim()) continue;
      const section = labels.get(item.href) ?? firstHeading(chapter.markdown) ?? chapter.title ?? fileName(item.href);
      const start = length + (parts.length > 0 ? 2 : 0);
      parts.push(chapter.markdown);
      length = start + chapter.markdown.length;
      if (length > input.limits.maxTextChars) {
        throw new ExtractError("limit_exceeded", `the extracted text is over the limit of ${input.limits.maxTextChars} characters`);
      }
      segments.push({ start, end: length, locator: { section } });
    }
    if (parts.length === 0) warnings.push("the EPUB's chapters have no text");
    const metadata: Record<string, string | number> = { chapters: segments.length };
    if (pack.creator) metadata.author = pack.creator;
    if (pack.language) metadata.language = pack.language;
    if (pack.date) metadata.published = pack.date;
    if (pack.publisher) metadata.publisher = pack.publisher;
    return { format: "epub", text: parts.join("\n\n"), title: pack.title, metadata, segments, warnings };
  },
};

/** Refuses XML that declares entities: docdb never expands them (the "billion laughs" attack). */
function refuseEntities(xml: string, path: string): string {
  if (/<!ENTITY/i.test(xml)) {
    throw new ExtractError(
      "corrupt",
      `${path} declares XML entities (<!ENTITY>), which docdb refuses to expand; the EPUB is malformed or hostile`,
    );
  }
  return xml;
}

interface Package {
  title?: string;
  creator?: string;
  language?: string;
  date?: string;
  publisher?: string;
  manifest: Map<string, ManifestItem>;
  spine: ManifestItem[];
  /** The manifest id of the EPUB 2 NCX table of contents. */
  tocId?: string;
}

/** Reads the OPF: Dublin Core metadata, the manifest (hrefs resolved against the OPF's folder) and the spine. */
function readPackage(opf: string, base: string): Package {
  const pack: Package = { manifest: new Map(), spine: [] };
  const idrefs: string[] = [];
  let field: "title" | "creator" | "language" | "date" | "publisher" | undefined;
  let value = "";
  sax(opf, {
    onopentag(name, attributes) {
      const local = name.replace(/^.*:/, "");
      if (name.startsWith("dc:") && ["title", "creator", "language", "date", "publisher"].includes(local)) {
        field = local as typeof field;
        value = "";
      } else if (local === "item" && attributes.id && attributes.href) {
        pack.manifest.set(attributes.id, {
          href: resolvePath(base, attributes.href),
          mediaType: attributes["media-type"] ?? "",
          properties: attributes.properties ?? "",
        });
      } else if (local === "itemref" && attributes.idref && attributes.linear !== "no") {
        idrefs.push(attributes.idref);
      } else if (local === "spine" && attributes.toc) {
        pack.tocId = attributes.toc;
      }
    },
    ontext(text) {
      if (field) value += text;
    },
    onclosetag(name) {
      if (field && name.replace(/^.*:/, "") === field) {
        const clean = value.replace(/\s+/g, " ").trim();
        if (clean && !pack[field]) pack[field] = clean;
        field = undefined;
      }
    },
  });
  for (const id of idrefs) {
    const item = pack.manifest.get(id);
    if (item) pack.spine.push(item);
  }
  return pack;
}

/** Chapter titles by file from the EPUB 3 navigation document or the EPUB 2 NCX (first label per file wins). */
function tocLabels(pack: Package, text: (path: string) => string | undefined): Map<string, string> {
  const labels = new Map<string, string>();
  const add = (base: string, href: string | undefined, label: string) => {
    const clean = label.replace(/\s+/g, " ").trim();
    if (!href || !clean) return;
    const path = resolvePath(base, href.split("#")[0] ?? "");
    if (!labels.has(path)) labels.set(path, clean.slice(0, 200));
  };
  const nav = [...pack.manifest.values()].find((item) => item.properties.split(/\s+/).includes("nav"));
  const navText = nav ? text(nav.href) : undefined;
  if (nav && navText) {
    let href: string | undefined;
    let label = "";
    sax(navText, {
      onopentag(name, attributes) {
        if (name === "a") {
          href = attributes.href;
          label = "";
        }
      },
      ontext(chunk) {
        if (href !== undefined) label += chunk;
      },
      onclosetag(name) {
        if (name === "a" && href !== undefined) add(directoryOf(nav.href), href, label);
        if (name === "a") href = undefined;
      },
    });
  }
  const ncx = pack.tocId ? pack.manifest.get(pack.tocId) : undefined;
  const ncxText = ncx ? text(ncx.href) : undefined;
  if (ncx && ncxText) {
    let label = "";
    let inText = false;
    sax(ncxText, {
      onopentag(name, attributes) {
        if (name === "navpoint") label = "";
        if (name === "text") inText = true;
        if (name === "content") add(directoryOf(ncx.href), attributes.src, label);
      },
      ontext(chunk) {
        if (inText) label += chunk;
      },
      onclosetag(name) {
        if (name === "text") inText = false;
      },
    });
  }
  return labels;
}

/** Paths of files META-INF/encryption.xml says are encrypted, except fonts merely obfuscated. */
function encryptedPaths(xml: string | undefined): Set<string> {
  const paths = new Set<string>();
  if (!xml) return paths;
  let algorithm = "";
  sax(xml, {
    onopentag(name, attributes) {
      const local = name.replace(/^.*:/, "");
      if (local === "encryptionmethod") algorithm = attributes.algorithm ?? "";
      if (local === "cipherreference" && attributes.uri && !FONT_OBFUSCATION.has(algorithm)) paths.add(resolvePath("", attributes.uri));
    },
  });
  return paths;
}

interface SaxHandlers {
  onopentag?(name: string, attributes: Record<string, string>): void;
  ontext?(text: string): void;
  onclosetag?(name: string): void;
}

/** A non-validating XML pass (names lower-cased): entities beyond the five XML ones are never expanded. */
function sax(xml: string, handlers: SaxHandlers): void {
  const parser = new Parser(
    {
      onopentag: (name, attributes) => handlers.onopentag?.(name.toLowerCase(), lowerKeys(attributes)),
      ontext: (text) => handlers.ontext?.(text),
      onclosetag: (name) => handlers.onclosetag?.(name.toLowerCase()),
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.end(capDepth(xml, MAX_HTML_DEPTH, true).html);
}

function lowerKeys(attributes: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(attributes)) out[key.toLowerCase()] = value;
  return out;
}

function firstAttribute(xml: string, element: string, attribute: string): string | undefined {
  let found: string | undefined;
  sax(xml, {
    onopentag(name, attributes) {
      if (found === undefined && name.replace(/^.*:/, "") === element) found = attributes[attribute];
    },
  });
  return found;
}

function directoryOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash === -1 ? "" : path.slice(0, slash + 1);
}

/** Resolves a manifest href (relative, percent-encoded) against a folder inside the zip. */
function resolvePath(base: string, href: string): string {
  let decoded = href;
  try {
    decoded = decodeURIComponent(href);
  } catch {}
  const parts: string[] = [];
  for (const part of (base + decoded).split("/")) {
    if (part === "..") parts.pop();
    else if (part !== "." && part !== "") parts.push(part);
  }
  return parts.join("/");
}

function fileName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function firstHeading(markdown: string): string | undefined {
  return markdown.match(/^#{1,6} (.+)$/m)?.[1]?.trim();
}
