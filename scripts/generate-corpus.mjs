#!/usr/bin/env node
/**
 * Writes a synthetic project folder for import benchmarks and tests: Japanese and English
 * Markdown, TypeScript, Python, Go, Rust, Java and plain text in nested folders, plus a
 * .gitignore and a node_modules folder the import must skip. Deterministic for a seed.
 *
 *   node scripts/generate-corpus.mjs DIR [--files 2000] [--seed 1]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { seeded as random } from "./seeded-random.mjs";

const JA = [
  "アクセストークンの有効期限は二十四時間です。",
  "設定ファイルはプロジェクトのルートに置きます。",
  "障害が起きたときは、まずログを確認してください。",
  "この関数は入力を検証してから保存します。",
  "請求書は毎月一日に発行されます。",
  "検索結果はスコアの高い順に並びます。",
  "日本語の文章は単語の間に空白がありません。",
  "バックアップは毎晩三時に取得されます。",
  "レート制限を超えると429が返されます。",
  "新しいバージョンでは起動時間が半分になりました。",
];
const EN = [
  "The importer walks the folder and skips ignored files.",
  "Each request must carry a bearer token in the Authorization header.",
  "Invoices are issued on the first day of every month.",
  "The cache is invalidated whenever the configuration changes.",
  "Retries use exponential backoff with jitter.",
  "Search results are ordered by score, highest first.",
  "The service exposes metrics on a separate port.",
  "Migrations run in order, each in its own transaction.",
];
const WORDS = ["token", "invoice", "user", "order", "cache", "config", "report", "session", "payment", "index", "query", "export"];

function pick(rand, list) {
  return list[Math.floor(rand() * list.length)];
}

function sentences(rand, list, n) {
  return Array.from({ length: n }, () => pick(rand, list)).join(" ");
}

function ident(rand, i) {
  const w = pick(rand, WORDS);
  return `${w}${pick(rand, WORDS).replace(/^./, (c) => c.toUpperCase())}${i}`;
}

function markdown(rand, i) {
  const ja = rand() < 0.6;
  const lines = [`# ${ja ? "ガイド" : "Guide"} ${i}`, "", sentences(rand, ja ? JA : EN, 3), ""];
  const sections = 3 + Math.floor(rand() * 4);
  for (let s = 0; s < sections; s++) {
    lines.push(`## ${ja ? "節" : "Section"} ${s + 1}`, "", sentences(rand, ja ? JA : EN, 4 + Math.floor(rand() * 8)), "");
    if (rand() < 0.3) lines.push("```sh", `docdb import -n docs${i}`, "```", "");
  }
  return lines.join("\n");
}

function typescript(rand, i) {
  const out = [`import { readFile } from "node:fs/promises";`, ""];
  const n = 2 + Math.floor(rand() * 4);
  for (let k = 0; k < n; k++) {
    const name = ident(rand, k);
    if (rand() < 0.4) {
      out.push(`/** ${pick(rand, EN)} */`, `export class ${name.replace(/^./, (c) => c.toUpperCase())} {`);
      out.push("  private readonly items = new Map<string, number>();", "");
      for (let m = 0; m < 3; m++) {
        out.push(
          `  ${ident(rand, m)}(key: string): number {`,
          `    // ${pick(rand, EN)}`,
          "    return this.items.get(key) ?? 0;",
          "  }",
          "",
        );
      }
      out.push("}", "");
    } else {
      out.push(`/** ${pick(rand, EN)} */`, `export async function ${name}(path: string): Promise<string> {`);
      out.push(`  const text = await readFile(path, "utf8");`, `  // ${pick(rand, EN)}`, "  return text.trim();", "}", "");
    }
  }
  out.push(`export const VERSION_${i} = ${i};`);
  return out.join("\n");
}

function python(rand, i) {
  const out = [`"""Module ${i}: ${pick(rand, EN)}"""`, "import json", "", ""];
  const n = 2 + Math.floor(rand() * 4);
  for (let k = 0; k < n; k++) {
    const name = ident(rand, k).replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    if (rand() < 0.4) {
      out.push(`class ${name.replace(/(^|_)(.)/g, (_m, _u, c) => c.toUpperCase())}:`, `    """${pick(rand, EN)}"""`, "");
      out.push("    def __init__(self, value):", "        self.value = value", "");
      out.push("    def dump(self):", "        return json.dumps({'value': self.value})", "", "");
    } else {
      out.push(`def ${name}(payload):`, `    """${pick(rand, EN)}"""`, "    return json.loads(payload)", "", "");
    }
  }
  return out.join("\n");
}

function go(rand, i) {
  const out = [`package pkg${i % 10}`, "", `import "fmt"`, ""];
  for (let k = 0; k < 3; k++) {
    out.push(
      `// ${ident(rand, k)} ${pick(rand, EN).toLowerCase()}`,
      `func F${i}x${k}(n int) string {`,
      `\treturn fmt.Sprint(n * ${k + 1})`,
      "}",
      "",
    );
  }
  return out.join("\n");
}

function rust(rand, i) {
  const out = ["use std::collections::HashMap;", ""];
  out.push(`/// ${pick(rand, EN)}`, `pub struct Store${i} {`, "    items: HashMap<String, u64>,", "}", "");
  out.push(`impl Store${i} {`, "    pub fn new() -> Self {", "        Self { items: HashMap::new() }", "    }", "}", "");
  return out.join("\n");
}

function java(rand, i) {
  return [
    "package com.example;",
    "",
    `/** ${pick(rand, EN)} */`,
    `public class Service${i} {`,
    "    private final String name;",
    "",
    `    public Service${i}(String name) {`,
    "        this.name = name;",
    "    }",
    "",
    "    public String greet() {",
    '        return "hello " + name;',
    "    }",
    "}",
    "",
  ].join("\n");
}

function text(rand) {
  return `${sentences(rand, rand() < 0.5 ? JA : EN, 6 + Math.floor(rand() * 10))}\n`;
}

const KINDS = [
  [0.4, "md", markdown],
  [0.25, "ts", typescript],
  [0.15, "py", python],
  [0.1, "txt", text],
  [0.04, "go", go],
  [0.03, "rs", rust],
  [0.03, "java", java],
];

function write(path, content) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

/** Writes `files` importable files (and some that must be skipped) under `dir`. */
export function generateCorpus(dir, options = {}) {
  const files = options.files ?? 2000;
  const rand = random(options.seed ?? 1);
  let bytes = 0;
  for (let i = 0; i < files; i++) {
    let roll = rand();
    let kind = KINDS[KINDS.length - 1];
    for (const k of KINDS) {
      if (roll < k[0]) {
        kind = k;
        break;
      }
      roll -= k[0];
    }
    const [, ext, make] = kind;
    const content = make(rand, i);
    bytes += Buffer.byteLength(content);
    write(join(dir, `area${i % 8}`, `part${Math.floor(i / 8) % 16}`, `file${i}.${ext}`), content);
  }
  // Things the import must leave out.
  write(join(dir, ".gitignore"), "*.log\ntmp/\n");
  write(join(dir, "tmp", "scratch.md"), "# scratch\n");
  write(join(dir, "run.log"), "log line\n");
  write(join(dir, "node_modules", "dep", "index.js"), "module.exports = 1;\n");
  return { files, bytes };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [dir, ...rest] = process.argv.slice(2);
  if (!dir) {
    process.stderr.write("usage: node scripts/generate-corpus.mjs DIR [--files N] [--seed N]\n");
    process.exit(2);
  }
  const flag = (name, fallback) => {
    const at = rest.indexOf(name);
    return at >= 0 ? Number(rest[at + 1]) : fallback;
  };
  const result = generateCorpus(dir, { files: flag("--files", 2000), seed: flag("--seed", 1) });
  process.stdout.write(`wrote ${result.files} files (${(result.bytes / 1024 / 1024).toFixed(1)} MB) to ${dir}\n`);
}
