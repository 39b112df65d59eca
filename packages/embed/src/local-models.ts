/** How token vectors become one text vector. */
export type Pooling = "mean" | "cls";

/** What is added before a text, by kind: e5 models are trained with `query: ` / `passage: `. */
export interface Prefixes {
  query: string;
  document: string;
}

/** A model the local provider knows: enough to embed with it before its files are read. */
export interface LocalModelSpec {
  /** Hugging Face id of an ONNX export (the download source). */
  id: string;
  dimensions: number;
  prefixes: Prefixes;
  pooling: Pooling;
  /** Short note for `docdb models`. */
  languages: string;
  license: string;
}

const E5: Prefixes = { query: "query: ", document: "passage: " };
const NONE: Prefixes = { query: "", document: "" };
const BGE_EN: Prefixes = { query: "Represent this sentence for searching relevant passages: ", document: "" };

export const DEFAULT_LOCAL_MODEL = "Xenova/multilingual-e5-small";

/** The models docdb has settings for. Others work too when their folder is given (no prefixes, mean pooling). */
export const KNOWN_LOCAL_MODELS: readonly LocalModelSpec[] = [
  {
    id: "Xenova/multilingual-e5-small",
    dimensions: 384,
    prefixes: E5,
    pooling: "mean",
    languages: "Japanese, English, ~100 languages, code",
    license: "MIT",
  },
  { id: "Xenova/multilingual-e5-base", dimensions: 768, prefixes: E5, pooling: "mean", languages: "~100 languages", license: "MIT" },
  { id: "Xenova/multilingual-e5-large", dimensions: 1024, prefixes: E5, pooling: "mean", languages: "~100 languages", license: "MIT" },
  {
    id: "Xenova/paraphrase-multilingual-MiniLM-L12-v2",
    dimensions: 384,
    prefixes: NONE,
    pooling: "mean",
    languages: "50+ languages",
    license: "Apache-2.0",
  },
  { id: "Xenova/all-MiniLM-L6-v2", dimensions: 384, prefixes: NONE, pooling: "mean", languages: "English", license: "Apache-2.0" },
  { id: "Xenova/bge-small-en-v1.5", dimensions: 384, prefixes: BGE_EN, pooling: "cls", languages: "English", license: "MIT" },
];

/**
 * The known model an id names: exact (case-insensitive), or by its last path part, so
 * `multilingual-e5-small`, `intfloat/multilingual-e5-small` and a folder of that name all
 * find the e5 settings.
 */
export function findKnownLocalModel(id: string): LocalModelSpec | undefined {
  const wanted = id.trim().toLowerCase();
  const exact = KNOWN_LOCAL_MODELS.find((m) => m.id.toLowerCase() === wanted);
  if (exact) return exact;
  const name = wanted.split("/").pop();
  return KNOWN_LOCAL_MODELS.find((m) => m.id.toLowerCase().split("/").pop() === name);
}

/** The text a model sees for `text` of this kind. */
export function withPrefix(prefixes: Prefixes, kind: "query" | "document", text: string): string {
  return `${kind === "query" ? prefixes.query : prefixes.document}${text}`;
}
