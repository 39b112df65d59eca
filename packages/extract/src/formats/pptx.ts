// PPTX: slides in presentation order (presentation.xml's slide list, not file names), one segment
// per slide: `## Slide n: title`, body paragraphs and bullets, tables as rows, then speaker notes.
import { ExtractError, type Extracted, type Extractor } from "../types.js";
import { mainPart, openPackage, readCoreProperties, readRels, requirePart } from "./ooxml.js";
import { plainParagraph, TextOut, tableRow, tableRule } from "./text-out.js";
import { attr, childNamed, childrenNamed, findFirst, parseXmlTree, textOf, type XmlNode } from "./xml.js";

export const extractor: Extractor = {
  formats: ["pptx"],
  async extract(bytes, input): Promise<Extracted> {
    const parts = openPackage(bytes, input.limits, "pptx");
    const presentationName = mainPart(parts, "ppt/presentation.xml");
    const presentation = parseXmlTree(requirePart(parts, presentationName, "pptx"), presentationName);
    const rels = readRels(parts, presentationName);
    const list = childNamed(childNamed(presentation, "presentation"), "sldIdLst");
    const slideNames = (list ? childrenNamed(list, "sldId") : [])
      .map((sldId) => rels.get(attr(sldId.attrs, "id", true) ?? "")?.target)
      .filter((target): target is string => target !== undefined);
    if (slideNames.length === 0 && [...parts.keys()].some((name) => /^ppt\/slides\/slide\d+\.xml$/.test(name))) {
      throw new ExtractError("corrupt", "the file is damaged or not a real .pptx: its slide list is missing");
    }
    const core = readCoreProperties(parts);
    const out = new TextOut(input.limits.maxTextChars);
    let firstTitle: string | undefined;
    slideNames.forEach((slideName, index) => {
      const number = index + 1;
      const bytes = parts.get(slideName);
      if (!bytes) {
        out.warnings.push(`slide ${number} (${slideName}) is missing from the file`);
        return;
      }
      const slide = readSlide(parseXmlTree(bytes, slideName));
      firstTitle ??= slide.title;
      out.segment({ slide: number });
      out.block(`## Slide ${number}${slide.title ? `: ${slide.title}` : ""}`);
      for (const block of slide.blocks) out.block(block);
      const notes = readNotes(parts, slideName);
      if (notes) out.block(`Notes: ${notes}`);
    });
    const text = out.toString();
    if (slideNames.length === 0) out.warnings.push("the presentation has no slides");
    const title = core.title ?? firstTitle;
    return {
      format: "pptx",
      text,
      ...(title ? { title } : {}),
      metadata: { ...core.metadata, slides: slideNames.length },
      segments: out.segments,
      warnings: out.warnings,
    };
  },
};

interface Slide {
  title?: string;
  blocks: string[];
}

function readSlide(root: XmlNode): Slide {
  const tree = findFirst(root, "spTree");
  const slide: Slide = { blocks: [] };
  if (tree) readShapes(tree, slide);
  return slide;
}

function readShapes(container: XmlNode, slide: Slide): void {
  for (const shape of container.children) {
    if (typeof shape === "string") continue;
    if (shape.name === "grpSp") readShapes(shape, slide);
    else if (shape.name === "sp") readShape(shape, slide);
    else if (shape.name === "graphicFrame") {
      const table = findFirst(shape, "tbl");
      if (table) slide.blocks.push(readTable(table));
    } else if (shape.name === "AlternateContent") {
      const choice = childNamed(shape, "Choice");
      if (choice) readShapes(choice, slide);
    }
  }
}

function readShape(shape: XmlNode, slide: Slide): void {
  const placeholder = findFirst(childNamed(shape, "nvSpPr") ?? shape, "ph");
  const kind = placeholder ? (attr(placeholder.attrs, "type") ?? "body") : undefined;
  if (kind && ["sldNum", "dt", "ftr", "hdr"].includes(kind)) return;
  const body = childNamed(shape, "txBody");
  if (!body) return;
  const paragraphs = childrenNamed(body, "p");
  if ((kind === "title" || kind === "ctrTitle") && slide.title === undefined) {
    const title = paragraphs.map(paragraphText).filter(Boolean).join(" ");
    if (title) {
      slide.title = title;
      return;
    }
  }
  const bulleted = kind === "body" || kind === "obj";
  const lines: { text: string; bullet: boolean }[] = [];
  for (const paragraph of paragraphs) {
    const text = paragraphText(paragraph);
    if (!text) continue;
    const properties = childNamed(paragraph, "pPr");
    const level = Math.min(Number(properties ? attr(properties.attrs, "lvl") : 0) || 0, 8);
    const bullet = properties && (childNamed(properties, "buChar") || childNamed(properties, "buAutoNum"));
    const none = properties && childNamed(properties, "buNone");
    if ((bulleted && !none) || bullet) lines.push({ text: `${"  ".repeat(level)}- ${text}`, bullet: true });
    else lines.push({ text: plainParagraph(text), bullet: false });
  }
  let block = "";
  lines.forEach((line, index) => {
    if (index > 0) block += line.bullet && lines[index - 1]?.bullet ? "\n" : "\n\n";
    block += line.text;
  });
  if (block) slide.blocks.push(block);
}

function paragraphText(paragraph: XmlNode): string {
  let text = "";
  for (const run of paragraph.children) {
    if (typeof run === "string") continue;
    if (run.name === "r" || run.name === "fld") {
      const t = childNamed(run, "t");
      if (t) text += textOf(t);
    } else if (run.name === "br") text += " ";
  }
  return text.replace(/[ \t\r\n]+/g, " ").trim();
}

function readTable(table: XmlNode): string {
  const rows = childrenNamed(table, "tr")
    .map((row) =>
      childrenNamed(row, "tc").map((cell) => {
        const body = childNamed(cell, "txBody");
        return body ? childrenNamed(body, "p").map(paragraphText).filter(Boolean).join(" ") : "";
      }),
    )
    .filter((row) => row.some(Boolean));
  if (rows.length === 0) return "";
  const width = Math.max(...rows.map((row) => row.length));
  return rows.map((row, index) => (index === 0 ? `${tableRow(row)}\n${tableRule(width)}` : tableRow(row))).join("\n");
}

function readNotes(parts: Map<string, Uint8Array>, slideName: string): string | undefined {
  for (const rel of readRels(parts, slideName).values()) {
    if (!rel.type.endsWith("/notesSlide")) continue;
    const bytes = parts.get(rel.target);
    if (!bytes) return undefined;
    const tree = findFirst(parseXmlTree(bytes, rel.target), "spTree");
    if (!tree) return undefined;
    const texts: string[] = [];
    for (const shape of childrenNamed(tree, "sp")) {
      const placeholder = findFirst(childNamed(shape, "nvSpPr") ?? shape, "ph");
      if (!placeholder || attr(placeholder.attrs, "type") !== "body") continue;
      const body = childNamed(shape, "txBody");
      if (body) texts.push(...childrenNamed(body, "p").map(paragraphText).filter(Boolean));
    }
    return texts.join(" ") || undefined;
  }
  return undefined;
}
