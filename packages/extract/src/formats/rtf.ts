// RTF: a small text reader (no maintained npm parser reads plain text with code pages well): groups,
// control words, \uN with \ucN skips, \'hh in the document or font code page, tables as rows,
// \outlinelevelN paragraphs as headings, \info's title and author; other destinations skipped.
import { TextDecoder } from "node:util";
import { ExtractError, type Extractor } from "../types.js";

/** Groups nested deeper than this are read as if they were not groups (their text is kept). */
export const MAX_RTF_DEPTH = 512;

/** Destinations whose content is not document text. */
const SKIP = new Set([
  "colortbl",
  "stylesheet",
  "pict",
  "object",
  "objdata",
  "fldinst",
  "themedata",
  "colorschememapping",
  "latentstyles",
  "datastore",
  "xmlnstbl",
  "listtable",
  "listoverridetable",
  "rsidtbl",
  "generator",
  "mmathPr",
  "pgdsctbl",
  "revtbl",
  "filetbl",
  "header",
  "headerl",
  "headerr",
  "headerf",
  "footer",
  "footerl",
  "footerr",
  "footerf",
  "nonshppict",
  "shppict",
  "private",
  "bkmkstart",
  "bkmkend",
  "xe",
  "tc",
  "operator",
  "company",
  "category",
  "keywords",
  "comment",
  "doccomm",
  "subject",
  "manager",
  "hlinkbase",
  "userprops",
  "docvar",
  "template",
  "listtext",
  "pntext",
  "pntxta",
  "pntxtb",
]);

/** Control words that stand for a character. */
const SYMBOLS: Record<string, string> = {
  par: "\n\n",
  sect: "\n\n",
  page: "\n\n",
  line: "\n",
  tab: "\t",
  cell: " | ",
  nestcell: " | ",
  row: "\n",
  nestrow: "\n",
  emdash: "\u2014",
  endash: "\u2013",
  bullet: "\u2022",
  lquote: "\u2018",
  rquote: "\u2019",
  ldblquote: "\u201c",
  rdblquote: "\u201d",
  emspace: " ",
  enspace: " ",
  qmspace: " ",
};

/** \fcharsetN → Windows code page. */
const CHARSET_CODEPAGE: Record<number, number> = {
  0: 1252,
  128: 932,
  129: 949,
  130: 1361,
  134: 936,
  136: 950,
  161: 1253,
  162: 1254,
  163: 1258,
  177: 1255,
  178: 1256,
  186: 1257,
  204: 1251,
  222: 874,
  238: 1250,
  77: 10000,
};

interface Group {
  /** "text", a skipped destination, or a metadata field being read. */
  dest: "text" | "skip" | "fonttbl" | "title" | "author";
  uc: number;
  codepage: number;
  outline: number;
  inTable: boolean;
}

export const extractor: Extractor = {
  formats: ["rtf"],
  async extract(bytes, input) {
    const source = new TextDecoder("latin1").decode(bytes);
    if (!source.startsWith("{\\rtf"))
      throw new ExtractError("corrupt", "the file does not start with {\\rtf; it is not RTF or it is damaged");
    const result = readRtf(source, input.limits.maxTextChars);
    const metadata: Record<string, string> = {};
    if (result.author) metadata.author = result.author;
    if (!result.text) result.warnings.push("the RTF document has no text");
    return { format: "rtf", text: result.text, title: result.title, metadata, segments: [], warnings: result.warnings };
  },
};

export interface RtfText {
  text: string;
  title?: string;
  author?: string;
  warnings: string[];
}

/** Reads RTF source (bytes as Latin-1 characters) to Markdown-ish plain text. */
export function readRtf(source: string, maxChars: number): RtfText {
  const warnings: string[] = [];
  const fonts = new Map<number, number>();
  const fields = { title: "", author: "" };
  let documentCodepage = 1252;
  let group: Group = { dest: "text", uc: 1, codepage: 1252, outline: -1, inTable: false };
  const stack: Group[] = [];
  let overflow = 0;
  let overflowed = false;
  let paragraph = "";
  const out: string[] = [];
  let outLength = 0;
  let pendingBytes: number[] = [];
  let skipChars = 0;
  let fontNumber = -1;
  let starred = false;

  const flushBytes = () => {
    if (pendingBytes.length === 0) return;
    emit(decode(pendingBytes, group.codepage));
    pendingBytes = [];
  };
  const emit = (text: string) => {
    if (group.dest === "text") paragraph += text;
    else if (group.dest === "title" || group.dest === "author") fields[group.dest] += text;
  };
  const endParagraph = (separator: string) => {
    const clean = paragraph.replace(/[ \t]+$/g, "");
    const heading = group.outline >= 0 && clean.trim() ? `${"#".repeat(Math.min(6, group.outline + 1))} ${clean.trim()}` : clean;
    out.push(heading, separator);
    outLength += heading.length + separator.length;
    if (outLength > maxChars) throw new ExtractError("limit_exceeded", `the extracted text is over the limit of ${maxChars} characters`);
    paragraph = "";
  };

  let i = 0;
  const n = source.length;
  while (i < n) {
    const c = source[i] as string;
    if (c === "{" || c === "}") {
      flushBytes();
      if (c === "{") {
        if (stack.length >= MAX_RTF_DEPTH) {
          overflow += 1;
          overflowed = true;
        } else stack.push({ ...group });
      } else if (overflow > 0) overflow -= 1;
      else if (stack.length > 0) group = stack.pop() as Group;
      skipChars = 0;
      starred = false;
      i += 1;
      continue;
    }
    if (c === "\\") {
      const next = source[i + 1] ?? "";
      if (next === "'") {
        const byte = Number.parseInt(source.slice(i + 2, i + 4), 16);
        i += 4;
        if (skipChars > 0) skipChars -= 1;
        else if (!Number.isNaN(byte)) pendingBytes.push(byte);
        continue;
      }
      if (/[a-zA-Z]/.test(next)) {
        const match = /^([a-zA-Z]{1,32})(-?\d{1,10})? ?/.exec(source.slice(i + 1, i + 48));
        const word = match?.[1] ?? next;
        const param = match?.[2] === undefined ? undefined : Number(match[2]);
        i += 1 + (match?.[0].length ?? 1);
        if (word === "bin") {
          i += Math.max(0, param ?? 0);
          continue;
        }
        if (skipChars > 0) {
          skipChars -= 1;
          continue;
        }
        if (word !== "u") flushBytes();
        if (starred) {
          starred = false;
          group.dest = "skip";
          continue;
        }
        if (SKIP.has(word)) group.dest = "skip";
        else if (word === "fonttbl") group.dest = "fonttbl";
        else if (word === "info") group.dest = "skip";
        else if ((word === "title" || word === "author") && stack.at(-1)?.dest === "skip") group.dest = word;
        if (group.dest === "skip") continue;
        switch (word) {
          case "ansicpg":
            documentCodepage = param ?? 1252;
            group.codepage = documentCodepage;
            break;
          case "mac":
            documentCodepage = group.codepage = 10000;
            break;
          case "pc":
            documentCodepage = group.codepage = 437;
            break;
          case "pca":
            documentCodepage = group.codepage = 850;
            break;
          case "uc":
            group.uc = Math.max(0, param ?? 1);
            break;
          case "u":
            flushBytes();
            emit(String.fromCharCode((param ?? 0) < 0 ? (param ?? 0) + 65536 : (param ?? 0)));
            skipChars = group.uc;
            break;
          case "f":
            if (group.dest === "fonttbl") fontNumber = param ?? -1;
            else group.codepage = fonts.get(param ?? -1) ?? documentCodepage;
            break;
          case "fcharset":
            if (group.dest === "fonttbl" && fontNumber >= 0) fonts.set(fontNumber, CHARSET_CODEPAGE[param ?? 0] ?? documentCodepage);
            break;
          case "cpg":
            if (group.dest === "fonttbl" && fontNumber >= 0 && param) fonts.set(fontNumber, param);
            break;
          case "pard":
            group.outline = -1;
            group.inTable = false;
            break;
          case "outlinelevel":
            group.outline = param ?? -1;
            break;
          case "intbl":
            group.inTable = true;
            break;
          case "row":
          case "nestrow":
            if (group.dest === "text") endParagraph("\n");
            break;
          case "par":
            if (group.dest === "text") endParagraph(group.inTable ? " " : "\n\n");
            break;
          default: {
            const symbol = SYMBOLS[word];
            if (symbol === undefined) break;
            if (group.dest === "text" && symbol === " | " && !paragraph.startsWith("|")) paragraph = `| ${paragraph.trimStart()}`;
            emit(symbol);
          }
        }
        continue;
      }
      // Control symbols: \\ \{ \} \~ \- \_ \* and escaped newlines.
      i += 2;
      if (next === "*") {
        starred = true;
        continue;
      }
      if (skipChars > 0) {
        skipChars -= 1;
        continue;
      }
      flushBytes();
      if (next === "\\" || next === "{" || next === "}") emit(next);
      else if (next === "~") emit("\u00a0");
      else if (next === "_") emit("-");
      else if (next === "\n" || next === "\r") {
        if (group.dest === "text") endParagraph("\n\n");
      }
      continue;
    }
    i += 1;
    if (c === "\r" || c === "\n") continue;
    if (skipChars > 0) {
      skipChars -= 1;
      continue;
    }
    if (group.dest === "skip") continue;
    if (group.dest === "fonttbl") continue;
    const code = c.charCodeAt(0);
    if (code >= 0x80) pendingBytes.push(code);
    else {
      flushBytes();
      emit(c);
    }
  }
  flushBytes();
  endParagraph("");
  if (overflowed) warnings.push(`groups nested more than ${MAX_RTF_DEPTH} deep were read as flat text`);
  const text = out
    .join("")
    .replace(/\u00a0/g, " ")
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  const clean = (value: string) => value.replace(/\s+/g, " ").trim() || undefined;
  return { text, title: clean(fields.title), author: clean(fields.author), warnings };
}

const decoders = new Map<number, TextDecoder>();

/** Decodes bytes in a Windows code page (932 = Shift_JIS, 936 = GBK, 949, 950, 125x, 874, 10000). */
function decode(bytes: number[], codepage: number): string {
  let decoder = decoders.get(codepage);
  if (!decoder) {
    const label =
      codepage === 932
        ? "shift_jis"
        : codepage === 936
          ? "gbk"
          : codepage === 949
            ? "euc-kr"
            : codepage === 950
              ? "big5"
              : codepage === 10000
                ? "macintosh"
                : codepage === 65001
                  ? "utf-8"
                  : codepage === 20932
                    ? "euc-jp"
                    : `windows-${codepage}`;
    try {
      decoder = new TextDecoder(label);
    } catch {
      decoder = new TextDecoder("windows-1252");
    }
    decoders.set(codepage, decoder);
  }
  return decoder.decode(Uint8Array.from(bytes));
}
