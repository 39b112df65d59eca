// The registry of format extractors: one module per format family, each filled in by its owner.
import type { ExtractFormat, Extractor } from "../types.js";

const loaders: Record<ExtractFormat, () => Promise<Extractor>> = {
  pdf: async () => (await import("./pdf.js")).extractor,
  docx: async () => (await import("./docx.js")).extractor,
  pptx: async () => (await import("./pptx.js")).extractor,
  xlsx: async () => (await import("./sheet.js")).extractor,
  ods: async () => (await import("./sheet.js")).extractor,
  csv: async () => (await import("./sheet.js")).extractor,
  tsv: async () => (await import("./sheet.js")).extractor,
  html: async () => (await import("./html.js")).extractor,
  epub: async () => (await import("./epub.js")).extractor,
  rtf: async () => (await import("./rtf.js")).extractor,
  eml: async () => (await import("./eml.js")).extractor,
};

/** Loads a format's extractor on first use, so `docdb` pays for a PDF library only when it reads a PDF. */
export function extractorFor(format: ExtractFormat): Promise<Extractor> {
  return loaders[format]();
}
