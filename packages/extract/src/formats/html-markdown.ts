// HTML → Markdown for every HTML-bearing format (web pages, EPUB chapters, HTML mail): caps element
// nesting, drops markup that carries no text, keeps CJK text free of added spaces, then runs turndown.
import { Tokenizer } from "htmlparser2";
import { parseHTML } from "linkedom";
import TurndownService from "turndown";

/** Deeper elements than this are flattened to their text, so no recursive step can overflow the stack. */
export const MAX_HTML_DEPTH = 256;

/** Elements whose content is never document text. */
export const NON_TEXT = ["script", "style", "noscript", "template", "iframe", "object", "embed", "svg", "canvas", "rt", "rp"];

/** A parsed page (linkedom); only what this package uses of it. */
export type HtmlDocument = ReturnType<typeof parseHTML>["document"];
type AnyNode = { nodeType: number; nodeName: string; parentNode: AnyNode | null; [key: string]: unknown };
/** The parts of a DOM element (turndown's domino) the rules below read. */
interface El {
  nodeName: string;
  parentNode: El | null;
  nextSibling: El | null;
  children: ArrayLike<El>;
  getAttribute(name: string): string | null;
  querySelector(selector: string): El | null;
}
const el = (node: unknown) => node as El;

const VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"]);
/** Elements whose end tag may be left out: a new one closes the open one. */
const SELF_CLOSING_SIBLINGS = new Set(["li", "p", "dt", "dd", "tr", "td", "th", "option", "thead", "tbody", "tfoot"]);

/**
 * Removes the tags of elements nested deeper than `maxDepth` (keeping their text), using htmlparser2's
 * tokenizer and a stack of its own: the tree builders (linkedom's included) take quadratic time on
 * 100,000 nested elements, and turndown recurses once per level. Returns the HTML unchanged when
 * nothing is that deep. With `xml`, `<x/>` closes itself.
 */
export function capDepth(html: string, maxDepth = MAX_HTML_DEPTH, xml = false): { html: string; flattened: number } {
  const drop: number[] = [];
  const stack: { name: string; dropped: boolean }[] = [];
  let flattened = 0;
  let openName = "";
  let openStart = 0;
  const noop = () => {};
  const open = (end: number, selfClosing: boolean) => {
    const name = openName;
    if (SELF_CLOSING_SIBLINGS.has(name) && stack.at(-1)?.name === name) stack.pop();
    if (VOID.has(name) || selfClosing) return;
    const dropped = stack.length >= maxDepth;
    if (dropped) {
      flattened += 1;
      drop.push(openStart, end + 1);
    }
    stack.push({ name, dropped });
  };
  const tokenizer = new Tokenizer(
    { decodeEntities: false },
    {
      onopentagname(start, end) {
        openName = html.slice(start, end).toLowerCase();
        openStart = start - 1;
      },
      onopentagend: (end) => open(end, false),
      onselfclosingtag: (end) => open(end, xml),
      onclosetag(start, end) {
        const name = html.slice(start, end).toLowerCase();
        const closeEnd = html.indexOf(">", end);
        // Close the nearest open element of that name (looking a little way down only).
        for (let i = stack.length - 1; i >= Math.max(0, stack.length - 32); i--) {
          if (stack[i]?.name !== name) continue;
          if (stack[i]?.dropped) drop.push(start - 2, (closeEnd === -1 ? end : closeEnd) + 1);
          stack.length = i;
          break;
        }
      },
      onattribdata: noop,
      onattribentity: noop,
      onattribend: noop,
      onattribname: noop,
      oncdata: noop,
      oncomment: noop,
      ondeclaration: noop,
      onend: noop,
      onprocessinginstruction: noop,
      ontext: noop,
      ontextentity: noop,
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  if (drop.length === 0) return { html, flattened: 0 };
  const parts: string[] = [];
  let at = 0;
  for (let i = 0; i < drop.length; i += 2) {
    const start = drop[i] as number;
    if (start < at) continue;
    parts.push(html.slice(at, start));
    at = drop[i + 1] as number;
  }
  parts.push(html.slice(at));
  return { html: parts.join(""), flattened };
}

/** Parses HTML with its nesting capped; `warnings` gets a line when elements were flattened. */
export function parsePage(html: string, warnings: string[]): HtmlDocument {
  const capped = capDepth(html);
  if (capped.flattened > 0) {
    warnings.push(`the page nests elements more than ${MAX_HTML_DEPTH} deep; ${capped.flattened} deeper elements were read as plain text`);
  }
  return parseHTML(capped.html).document;
}

const CJK = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}ー々〆〇。、！？「」『』（）【】・，．：；〜";
const CJK_BREAK = new RegExp(`([${CJK}])[ \\t\\r\\n]*[\\r\\n][ \\t\\r\\n]*(?=[${CJK}])`, "gu");
const CJK_START = new RegExp(`^[${CJK}]`, "u");
const CJK_END = new RegExp(`[${CJK}]$`, "u");
const INLINE = new Set([
  "A",
  "SPAN",
  "EM",
  "STRONG",
  "B",
  "I",
  "U",
  "S",
  "SMALL",
  "MARK",
  "RUBY",
  "CODE",
  "SUB",
  "SUP",
  "ABBR",
  "CITE",
  "Q",
]);

/**
 * Readies a parsed page for conversion: drops non-text elements, joins CJK text split across
 * source lines (a browser shows no space there; turndown would), and records heading levels as
 * `data-docdb-h` (readability turns every h1 into h2; the attribute keeps the original level).
 */
export function prepareDocument(document: HtmlDocument): void {
  for (const element of [...document.querySelectorAll(NON_TEXT.join(","))]) element.remove();
  for (const heading of document.querySelectorAll("h1,h2,h3,h4,h5,h6")) {
    heading.setAttribute("data-docdb-h", heading.tagName.slice(1));
  }
  const walker = document.createTreeWalker(document, 4);
  for (let node = walker.nextNode() as AnyNode | null; node; node = walker.nextNode() as AnyNode | null) {
    const text = node.textContent as string;
    if (!/[\r\n]/.test(text) || insidePre(node)) continue;
    if (text.trim() === "") {
      const before = node.previousSibling as AnyNode | null;
      const after = node.nextSibling as AnyNode | null;
      if (before && after && INLINE.has(before.nodeName) && INLINE.has(after.nodeName)) {
        if (CJK_END.test(String(before.textContent)) && CJK_START.test(String(after.textContent))) node.textContent = "";
      }
      continue;
    }
    const joined = text.replace(CJK_BREAK, "$1");
    if (joined !== text) node.textContent = joined;
  }
}

function insidePre(node: AnyNode): boolean {
  for (let up = node.parentNode; up; up = up.parentNode) {
    if (up.nodeName === "PRE" || up.nodeName === "TEXTAREA") return true;
  }
  return false;
}

let service: TurndownService | undefined;

/**
 * Converts an HTML fragment (already depth-capped and prepared) to Markdown: ATX headings at their
 * original level, `-` lists, fenced code, tables as `| a | b |` rows, links and images as their
 * text only. URLs are dropped: they are noise to keyword and vector search, and the page's own
 * address is already the document's source.
 */
export function htmlToMarkdown(html: string): string {
  service ??= makeService();
  const markdown = service.turndown(html);
  return tidy(markdown);
}

function makeService(): TurndownService {
  const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-", hr: "---" });
  // Text is kept as written: only a line that would read as a heading is escaped.
  turndown.escape = (text: string) => text.replace(/^(\s*)(#{1,6}\s)/gm, "$1\\$2");
  turndown.remove(NON_TEXT as TurndownService.Filter);
  turndown.addRule("heading", {
    filter: ["h1", "h2", "h3", "h4", "h5", "h6"],
    replacement(content, node) {
      const element = el(node);
      const level = Number(element.getAttribute("data-docdb-h") ?? element.nodeName.slice(1)) || 2;
      const text = content.replace(/\s+/g, " ").trim();
      return text ? `\n\n${"#".repeat(Math.min(6, level))} ${text}\n\n` : "";
    },
  });
  turndown.addRule("link", { filter: "a", replacement: (content) => content });
  turndown.addRule("image", {
    filter: "img",
    replacement: (_content, node) => {
      const alt = el(node).getAttribute("alt")?.trim();
      return alt ? ` ${alt} ` : "";
    },
  });
  turndown.addRule("listItem", {
    filter: "li",
    replacement(content, node) {
      const parent = el(node).parentNode;
      let marker = "- ";
      if (parent?.nodeName === "OL") {
        const start = Number(parent.getAttribute("start") ?? 1) || 1;
        marker = `${start + Array.prototype.indexOf.call(parent.children, node)}. `;
      }
      const body = content
        .replace(/^\n+/, "")
        .replace(/\n+$/, "\n")
        .replace(/\n/gm, `\n${" ".repeat(marker.length)}`);
      return marker + body.trimEnd() + (node.nextSibling ? "\n" : "");
    },
  });
  turndown.addRule("tableCell", {
    filter: ["th", "td"],
    replacement: (content) =>
      ` ${content
        .replace(/\s*\n\s*/g, " ")
        .replace(/\|/g, "\\|")
        .trim()} |`,
  });
  turndown.addRule("tableRow", {
    filter: "tr",
    replacement(content, node) {
      const row = `|${content}`;
      if (!isFirstRow(el(node))) return `\n${row}`;
      const cells = el(node).children.length;
      return `\n${row}\n|${" --- |".repeat(Math.max(1, cells))}`;
    },
  });
  turndown.addRule("tableSection", { filter: ["thead", "tbody", "tfoot"], replacement: (content) => content });
  turndown.addRule("tableCaption", { filter: "caption", replacement: (content) => `\n\n${content.trim()}\n\n` });
  turndown.addRule("table", { filter: "table", replacement: (content) => `\n\n${content.trim()}\n\n` });
  return turndown;
}

/** True when `row` is the first row of its table (the one that becomes the Markdown header row). */
function isFirstRow(row: El): boolean {
  let table = row.parentNode;
  while (table && table.nodeName !== "TABLE") table = table.parentNode;
  return table?.querySelector("tr") === row;
}

/** Trims trailing spaces, collapses runs of blank lines, and drops non-breaking-space-only lines. */
function tidy(markdown: string): string {
  return markdown
    .replace(/\u00a0/g, " ")
    .replace(/[ \t]+$/gm, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
