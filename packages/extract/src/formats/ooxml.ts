// What DOCX, PPTX and XLSX share: opening the zip (telling apart encrypted and legacy Office files),
// relationships between parts, and the core properties (title, author, dates).
import { ExtractError, type ExtractLimits } from "../types.js";
import { readZip } from "../zip.js";
import { attr, childNamed, childrenNamed, parseXmlTree, textOf, type XmlNode } from "./xml.js";

const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/** The XML parts of a zip-based office file, by name. Media (images, fonts) is never inflated. */
export function openPackage(bytes: Uint8Array, limits: ExtractLimits, kind: string): Map<string, Uint8Array> {
  if (OLE_MAGIC.every((byte, at) => bytes[at] === byte)) {
    const encrypted = containsUtf16(bytes, "EncryptedPackage");
    throw encrypted
      ? new ExtractError("encrypted", `the .${kind} file is password-protected; save a copy without the password and insert that`)
      : new ExtractError("corrupt", `this is an old binary Office file (.doc/.xls/.ppt), not a .${kind}; save it as .${kind} first`);
  }
  if (bytes[0] !== 0x50 || bytes[1] !== 0x4b) {
    throw new ExtractError("corrupt", `the file is damaged or not a real .${kind} (it is not a zip container)`);
  }
  try {
    return readZip(bytes, limits, (name) => /\.(xml|rels)$/i.test(name));
  } catch (error) {
    if (error instanceof ExtractError && error.code === "corrupt") {
      throw new ExtractError("corrupt", `the file is damaged or not a real .${kind}: ${error.message}`);
    }
    throw error;
  }
}

/** A part that must be there, or a clear error naming it. */
export function requirePart(parts: Map<string, Uint8Array>, name: string, kind: string): Uint8Array {
  const part = parts.get(name);
  if (!part) throw new ExtractError("corrupt", `the file is damaged or not a real .${kind}: the part ${name} is missing`);
  return part;
}

export interface Relationship {
  /** Absolute part name inside the package, without a leading slash. */
  target: string;
  type: string;
}

/** The relationships of `partName` (from `dir/_rels/file.rels`), by id. External targets are left out. */
export function readRels(parts: Map<string, Uint8Array>, partName: string): Map<string, Relationship> {
  const slash = partName.lastIndexOf("/");
  const dir = slash < 0 ? "" : partName.slice(0, slash);
  const relsName = `${dir ? `${dir}/` : ""}_rels/${partName.slice(slash + 1)}.rels`;
  const out = new Map<string, Relationship>();
  const bytes = parts.get(relsName);
  if (!bytes) return out;
  const root = parseXmlTree(bytes, relsName);
  for (const rel of childrenNamed(childNamed(root, "Relationships") ?? root, "Relationship")) {
    const id = rel.attrs.Id;
    const target = rel.attrs.Target;
    if (!id || !target || rel.attrs.TargetMode === "External") continue;
    out.set(id, { target: resolvePart(dir, target), type: rel.attrs.Type ?? "" });
  }
  return out;
}

/** Resolves a relationship target against the folder of its source part. */
export function resolvePart(dir: string, target: string): string {
  const segments = target.startsWith("/") ? [] : dir.split("/").filter(Boolean);
  for (const piece of target.split("/")) {
    if (piece === "" || piece === ".") continue;
    if (piece === "..") segments.pop();
    else segments.push(piece);
  }
  return segments.join("/");
}

/** The package's main part (the target of the officeDocument relationship), or `fallback`. */
export function mainPart(parts: Map<string, Uint8Array>, fallback: string): string {
  for (const rel of readRels(parts, "").values()) {
    if (rel.type.endsWith("/officeDocument")) return rel.target;
  }
  return fallback;
}

export interface CoreProperties {
  title?: string;
  metadata: Record<string, string>;
}

/** Title, author, subject, keywords and dates from `docProps/core.xml` (dates as ISO 8601). */
export function readCoreProperties(parts: Map<string, Uint8Array>): CoreProperties {
  const bytes = parts.get("docProps/core.xml");
  const out: CoreProperties = { metadata: {} };
  if (!bytes) return out;
  const root = childNamed(parseXmlTree(bytes, "docProps/core.xml"), "coreProperties");
  if (!root) return out;
  const value = (name: string) => {
    const node = childNamed(root, name);
    const text = node ? textOf(node).trim() : "";
    return text || undefined;
  };
  const title = value("title");
  if (title) out.title = title;
  const fields: [string, string][] = [
    ["creator", "author"],
    ["subject", "subject"],
    ["keywords", "keywords"],
    ["description", "description"],
    ["lastModifiedBy", "lastModifiedBy"],
  ];
  for (const [name, key] of fields) {
    const text = value(name);
    if (text) out.metadata[key] = text;
  }
  for (const name of ["created", "modified"]) {
    const date = isoDate(value(name));
    if (date) out.metadata[name] = date;
  }
  return out;
}

/** An ISO 8601 string for a date the file wrote, or undefined when it is not a date. */
export function isoDate(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

/** Reads `attr` of the first child named `name` (e.g. `<w:pStyle w:val="Heading1"/>`). */
export function childAttr(node: XmlNode | undefined, name: string, attribute: string): string | undefined {
  const child = childNamed(node, name);
  return child ? attr(child.attrs, attribute) : undefined;
}

function containsUtf16(bytes: Uint8Array, text: string): boolean {
  const needle = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) needle[i * 2] = text.charCodeAt(i);
  const limit = Math.min(bytes.length, 1024 * 1024) - needle.length;
  outer: for (let at = 0; at <= limit; at++) {
    for (let i = 0; i < needle.length; i++) if (bytes[at + i] !== needle[i]) continue outer;
    return true;
  }
  return false;
}
