// What a file of a collection is, from its name: Markdown, code, a document docdb extracts (PDF,
// DOCX, PPTX, spreadsheets, HTML…), text; names never worth reading; bytes as text.
import { basename, extname } from "node:path";
import { extractedFormatOfName } from "../extraction.js";

export type FileKindName = "markdown" | "code" | "text" | "document";

export interface FileKind {
  kind: FileKindName;
  language: string;
  /** The language the code chunker is asked to parse, when it is a dialect of `language` (TSX). */
  dialect?: string;
}

const MARKDOWN = new Set([".md", ".markdown", ".mdx"]);

const CODE: Record<string, string> = {
  ".ts": "typescript",
  ".tsx": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".js": "javascript",
  ".jsx": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".py": "python",
  ".pyi": "python",
  ".go": "go",
  ".rs": "rust",
  ".java": "java",
  ".kt": "kotlin",
  ".kts": "kotlin",
  ".scala": "scala",
  ".c": "c",
  ".h": "c",
  ".cc": "cpp",
  ".cpp": "cpp",
  ".cxx": "cpp",
  ".hpp": "cpp",
  ".cs": "csharp",
  ".rb": "ruby",
  ".php": "php",
  ".swift": "swift",
  ".sh": "shell",
  ".bash": "shell",
  ".zsh": "shell",
  ".sql": "sql",
  ".lua": "lua",
  ".r": "r",
  ".pl": "perl",
  ".ex": "elixir",
  ".exs": "elixir",
  ".dart": "dart",
  ".vue": "vue",
  ".svelte": "svelte",
  ".css": "css",
  ".scss": "css",
};

const CODE_NAMES: Record<string, string> = { Makefile: "make", Dockerfile: "dockerfile", Justfile: "make" };

/**
 * Extensions that are never text. Checked before reading so a folder of images costs nothing;
 * anything else is read and rejected if it holds a NUL byte or is not UTF-8.
 */
const BINARY = new Set(
  (
    ".png .jpg .jpeg .gif .bmp .ico .webp .avif .tif .tiff .psd .svgz .doc .xls .ppt .odt .odp " +
    ".zip .gz .tgz .bz2 .xz .zst .7z .rar .tar .jar .war .whl .egg .exe .dll .so .dylib .a .o .obj .class .pyc .pyo " +
    ".wasm .bin .dat .db .sqlite .sqlite3 .woff .woff2 .ttf .otf .eot .mp3 .mp4 .m4a .wav .flac .ogg .mov .avi .mkv .webm " +
    ".onnx .pt .safetensors .npy .npz .parquet .arrow .lockb"
  ).split(" "),
);

/** Files that are text but not worth searching: lockfiles, minified bundles, source maps. */
const NOISE_NAMES = new Set([
  "package-lock.json",
  "pnpm-lock.yaml",
  "yarn.lock",
  "Cargo.lock",
  "poetry.lock",
  "Pipfile.lock",
  "composer.lock",
  "Gemfile.lock",
  "go.sum",
  "uv.lock",
  ".DS_Store",
]);

export function isBinaryName(path: string): boolean {
  return BINARY.has(extname(path).toLowerCase());
}

export function isNoiseName(path: string): boolean {
  const name = basename(path);
  // SQLite side files too: a data folder inside a collection folder must not import itself.
  return (
    NOISE_NAMES.has(name) || /\.min\.(js|css)$/i.test(name) || /\.map$/i.test(name) || /\.(db|sqlite3?)-(wal|shm|journal)$/i.test(name)
  );
}

/**
 * How a file is read and chunked, from its name: documents (PDF, DOCX, PPTX, XLSX/ODS/CSV/TSV,
 * HTML, EPUB, RTF, EML) extracted to Markdown (`language` is the format), Markdown by headings,
 * code by declarations, the rest as text.
 */
export function fileKind(path: string): FileKind {
  const document = extractedFormatOfName(path);
  if (document) return { kind: "document", language: document };
  const ext = extname(path).toLowerCase();
  if (MARKDOWN.has(ext)) return { kind: "markdown", language: "markdown" };
  const code = CODE[ext] ?? CODE_NAMES[basename(path)];
  if (code) return ext === ".tsx" ? { kind: "code", language: code, dialect: "tsx" } : { kind: "code", language: code };
  return { kind: "text", language: ext ? ext.slice(1) : "text" };
}

/**
 * The bytes as text, or null when they are not text: a NUL byte anywhere (no engine stores NUL,
 * so a file with one past its first few KB would otherwise fail its whole write batch) or
 * invalid UTF-8 (decoded UTF-8 never holds a lone surrogate, so what passes every engine stores).
 */
export function decodeText(bytes: Buffer): string | null {
  if (bytes.includes(0)) return null;
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch {
    return null;
  }
}
