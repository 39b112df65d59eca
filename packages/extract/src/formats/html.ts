// HTML/XHTML pages: decode by charset, keep the main content (readability; the whole body minus
// navigation when readability finds too little), convert to Markdown, read title/author/date/lang.
import { Readability } from "@mozilla/readability";
import { ExtractError, type Extracted, type ExtractLimits, type Extractor } from "../types.js";
import { decodeMarkup } from "./html-charset.js";
import { type HtmlDocument, htmlToMarkdown, parsePage, prepareDocument } from "./html-markdown.js";

/** Boilerplate removed before the main-content pass: never the page's own text. */
const ALWAYS_BOILERPLATE = "nav, [role=navigation], [role=banner], [role=contentinfo], dialog, [aria-modal=true]";
/** Page-level header/footer/sidebars (those inside an article or main are kept: bylines, notes). */
const PAGE_CHROME = "header, footer, aside, [role=complementary], form";
const BANNER = /cookie[-_ ]?(banner|consent|notice|bar|policy)|consent|gdpr/i;

export interface HtmlOptions {
  /** Run the main-content pass (web pages); off for EPUB chapters and mail bodies, which are all content. */
  mainContent: boolean;
  url?: string;
}

export interface HtmlResult {
  markdown: string;
  title?: string;
  metadata: Record<string, string>;
  warnings: string[];
}

export const extractor: Extractor = {
  formats: ["html"],
  async extract(bytes, input) {
    const decoded = decodeMarkup(bytes, input.mediaType);
    const result = htmlDocumentToMarkdown(decoded.text, { mainContent: true, url: input.url });
    if (decoded.warning) result.warnings.unshift(decoded.warning);
    if (decoded.encoding !== "utf-8") result.metadata.charset = decoded.encoding;
    return finish("html", result, input.limits);
  },
};

/** Converts a whole HTML document to Markdown with its title and metadata. */
export function htmlDocumentToMarkdown(html: string, options: HtmlOptions): HtmlResult {
  const warnings: string[] = [];
  const document = parsePage(html, warnings);
  const metadata = readMetadata(document);
  const pageTitle = metadata.pageTitle;
  delete metadata.pageTitle;
  prepareDocument(document);
  if (options.mainContent) removeBoilerplate(document);
  let title = metadata.ogTitle || pageTitle;
  delete metadata.ogTitle;
  let content: string | undefined;
  if (options.mainContent) {
    const bodyChars = textLength(document.body?.textContent);
    let article: ReturnType<Readability["parse"]> = null;
    try {
      article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0], { keepClasses: false }).parse();
    } catch (error) {
      warnings.push(`the main-content pass failed (${(error as Error).message.slice(0, 120)}); used the whole page`);
    }
    const articleChars = textLength(article?.textContent);
    if (article?.content && articleChars >= Math.min(500, bodyChars * 0.5)) {
      content = article.content;
      title = article.title?.trim() || title;
      if (article.byline && !metadata.author) metadata.author = article.byline.trim();
      if (article.publishedTime && !metadata.published) metadata.published = article.publishedTime;
      if (article.siteName && !metadata.siteName) metadata.siteName = article.siteName;
    }
  }
  if (content === undefined) content = wholeBody(options.mainContent ? parseAgain(html) : document);
  let markdown = htmlToMarkdown(content);
  if (!title) title = firstHeading(markdown) ?? titleFromUrl(options.url);
  if (title && options.mainContent && !hasHeading(markdown, title)) markdown = `# ${title}\n\n${markdown}`;
  return { markdown, title: title || undefined, metadata, warnings };
}

/** Builds the Extracted for a single-text format, enforcing the text limit. */
export function finish(format: Extracted["format"], result: HtmlResult, limits: ExtractLimits): Extracted {
  if (result.markdown.length > limits.maxTextChars) {
    throw new ExtractError(
      "limit_exceeded",
      `the extracted text is ${result.markdown.length} characters, over the limit of ${limits.maxTextChars}`,
    );
  }
  if (!result.markdown.trim()) result.warnings.push("the page has no text");
  return { format, text: result.markdown, title: result.title, metadata: result.metadata, segments: [], warnings: result.warnings };
}

function parseAgain(html: string): HtmlDocument {
  const document = parsePage(html, []);
  prepareDocument(document);
  removeBoilerplate(document);
  return document;
}

/** Removes navigation, dialogs, cookie banners, and the page-level header, footer and sidebars. */
function removeBoilerplate(document: HtmlDocument): void {
  for (const element of [...document.querySelectorAll(ALWAYS_BOILERPLATE)]) element.remove();
  for (const element of [...document.querySelectorAll(PAGE_CHROME)]) {
    if (!element.closest("article, main, [role=main]")) element.remove();
  }
  for (const element of [...document.querySelectorAll("[id], [class]")]) {
    if (BANNER.test(`${element.getAttribute("id") ?? ""} ${element.getAttribute("class") ?? ""}`)) element.remove();
  }
}

/** The body (boilerplate already removed), as HTML. */
function wholeBody(document: HtmlDocument): string {
  const body = document.body ?? document.documentElement;
  return body ? body.innerHTML : "";
}

function readMetadata(document: HtmlDocument): Record<string, string> {
  const metadata: Record<string, string> = {};
  const meta = (selector: string) => document.querySelector(selector)?.getAttribute("content")?.trim() || undefined;
  const set = (key: string, value: string | null | undefined) => {
    const clean = value?.replace(/\s+/g, " ").trim();
    if (clean) metadata[key] = clean.slice(0, 500);
  };
  set("pageTitle", document.querySelector("title")?.textContent);
  set("ogTitle", meta('meta[property="og:title"]'));
  set("author", meta('meta[name="author"]') ?? meta('meta[property="article:author"]'));
  set("published", meta('meta[property="article:published_time"]') ?? meta('meta[name="date"]') ?? meta('meta[itemprop="datePublished"]'));
  set("description", meta('meta[name="description"]') ?? meta('meta[property="og:description"]'));
  set("lang", document.documentElement?.getAttribute("lang") ?? document.documentElement?.getAttribute("xml:lang"));
  return metadata;
}

function textLength(text: string | null | undefined): number {
  return text ? text.replace(/\s+/g, "").length : 0;
}

function firstHeading(markdown: string): string | undefined {
  return markdown.match(/^#{1,6} (.+)$/m)?.[1]?.trim();
}

function hasHeading(markdown: string, title: string): boolean {
  const wanted = title.replace(/\s+/g, " ").trim();
  const heading = firstHeading(markdown);
  return !!heading && (heading === wanted || wanted.startsWith(heading) || heading.startsWith(wanted));
}

function titleFromUrl(url?: string): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    const last = parsed.pathname.split("/").filter(Boolean).pop();
    return decodeURIComponent(last ?? parsed.hostname) || undefined;
  } catch {
    return undefined;
  }
}
