// Decodes HTML/XHTML bytes to text by the charset the page declares: byte-order mark, then the
// Content-Type charset parameter, then <meta charset> / http-equiv / the XML declaration, else UTF-8.
import { TextDecoder } from "node:util";

export interface Decoded {
  text: string;
  /** The encoding used, as TextDecoder names it (e.g. "shift_jis"). */
  encoding: string;
  /** Set when a declared charset was unknown and UTF-8 was used instead. */
  warning?: string;
}

/** Decodes `bytes`, honouring `mediaType`'s charset parameter when the bytes carry no BOM. */
export function decodeMarkup(bytes: Uint8Array, mediaType?: string): Decoded {
  const bom = sniffBom(bytes);
  if (bom) return { text: new TextDecoder(bom).decode(bytes), encoding: bom };
  const declared = charsetParam(mediaType) ?? prescan(bytes);
  if (declared) {
    const decoder = decoderFor(declared);
    if (decoder) return { text: decoder.decode(bytes), encoding: decoder.encoding };
    return {
      text: new TextDecoder("utf-8").decode(bytes),
      encoding: "utf-8",
      warning: `the page declares the unknown charset ${JSON.stringify(declared.slice(0, 40))}; read it as UTF-8`,
    };
  }
  return { text: new TextDecoder("utf-8").decode(bytes), encoding: "utf-8" };
}

/** A TextDecoder for a charset label, or null when the label is unknown. */
export function decoderFor(label: string): TextDecoder | null {
  try {
    return new TextDecoder(label.trim().toLowerCase());
  } catch {
    return null;
  }
}

function sniffBom(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  return null;
}

function charsetParam(mediaType?: string): string | null {
  const match = mediaType?.match(/;\s*charset\s*=\s*"?([^";\s]+)"?/i);
  return match?.[1] ?? null;
}

/** Looks for a declared charset in the first bytes (read as Latin-1, as the HTML spec's prescan does). */
function prescan(bytes: Uint8Array): string | null {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 4096));
  const xml = head.match(/^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']+)["']/i);
  if (xml?.[1]) return xml[1];
  for (const meta of head.matchAll(/<meta\b[^>]*>/gi)) {
    const tag = meta[0];
    const direct = tag.match(/\bcharset\s*=\s*["']?\s*([^"'\s/>;]+)/i);
    if (direct?.[1]) return direct[1];
  }
  return null;
}
