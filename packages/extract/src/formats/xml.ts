// Safe, streaming XML reading for the zip-based formats: element names without prefixes, no DTD
// entity expansion (a DOCTYPE that declares entities is refused), and a small tree for small parts.
import { SaxesParser } from "saxes";
import { ExtractError } from "../types.js";

export interface XmlHandlers {
  open?(name: string, attrs: Record<string, string>): void;
  close?(name: string): void;
  text?(text: string): void;
}

/** The element name without its namespace prefix (`w:p` → `p`). */
export function localName(qualified: string): string {
  const colon = qualified.indexOf(":");
  return colon < 0 ? qualified : qualified.slice(colon + 1);
}

/** The value of the attribute named `local` in any namespace prefix (`r:id`, `id`), preferring a prefixed one when `prefixed`. */
export function attr(attrs: Record<string, string>, local: string, prefixed = false): string | undefined {
  if (!prefixed && attrs[local] !== undefined) return attrs[local];
  for (const [name, value] of Object.entries(attrs)) {
    if (name.endsWith(`:${local}`)) return value;
  }
  return prefixed ? undefined : attrs[local];
}

const CHUNK = 1024 * 1024;

/** Streams `bytes` (UTF-8 XML) through `handlers`. `part` names the zip entry in error messages. */
export function parseXml(bytes: Uint8Array, part: string, handlers: XmlHandlers): void {
  const parser = new SaxesParser({ xmlns: false });
  const where = JSON.stringify(part);
  parser.on("doctype", (doctype) => {
    if (/<!ENTITY/i.test(doctype)) {
      throw new ExtractError(
        "limit_exceeded",
        `${where} declares XML entities in a DOCTYPE (an entity-expansion attack such as "billion laughs"); refusing to read it`,
      );
    }
  });
  parser.on("error", (error) => {
    throw new ExtractError("corrupt", `${where} is not well-formed XML (${error.message.slice(0, 200)}); the file is damaged`);
  });
  if (handlers.open) {
    const open = handlers.open;
    parser.on("opentag", (tag) => open(localName(tag.name), tag.attributes as Record<string, string>));
  }
  if (handlers.close) {
    const close = handlers.close;
    parser.on("closetag", (tag) => close(localName(tag.name)));
  }
  if (handlers.text) {
    parser.on("text", handlers.text);
    parser.on("cdata", handlers.text);
  }
  const decoder = new TextDecoder("utf-8");
  for (let offset = 0; offset < bytes.length; offset += CHUNK) {
    const end = Math.min(bytes.length, offset + CHUNK);
    parser.write(decoder.decode(bytes.subarray(offset, end), { stream: end < bytes.length }));
  }
  parser.close();
}

export interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: (XmlNode | string)[];
}

/** Parses a small part (relationships, properties, a slide) into a tree. */
export function parseXmlTree(bytes: Uint8Array, part: string): XmlNode {
  const root: XmlNode = { name: "#document", attrs: {}, children: [] };
  const stack: XmlNode[] = [root];
  parseXml(bytes, part, {
    open(name, attrs) {
      const node: XmlNode = { name, attrs, children: [] };
      stack[stack.length - 1]?.children.push(node);
      stack.push(node);
    },
    close() {
      stack.pop();
    },
    text(text) {
      stack[stack.length - 1]?.children.push(text);
    },
  });
  return root;
}

/** Direct children named `name`. */
export function childrenNamed(node: XmlNode, name: string): XmlNode[] {
  return node.children.filter((child): child is XmlNode => typeof child !== "string" && child.name === name);
}

/** The first direct child named `name`. */
export function childNamed(node: XmlNode | undefined, name: string): XmlNode | undefined {
  return node?.children.find((child): child is XmlNode => typeof child !== "string" && child.name === name);
}

/** The first descendant (depth first, document order) named `name`. */
export function findFirst(node: XmlNode, name: string): XmlNode | undefined {
  for (const child of node.children) {
    if (typeof child === "string") continue;
    if (child.name === name) return child;
    const found = findFirst(child, name);
    if (found) return found;
  }
  return undefined;
}

/** All text inside `node`, concatenated. */
export function textOf(node: XmlNode): string {
  let out = "";
  for (const child of node.children) out += typeof child === "string" ? child : textOf(child);
  return out;
}
