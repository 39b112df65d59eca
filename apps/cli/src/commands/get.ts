import { DocDBError, type DocumentRange, echo } from "@docdb/core";
import { Command } from "commander";
import { action, printJson } from "../context.js";

/** "10:20", "10-20", "10:" or ":20" as two optional whole numbers. */
function parsePair(value: string, flag: string): [number | undefined, number | undefined] {
  const match = /^\s*(\d*)\s*[:-]\s*(\d*)\s*$/.exec(value);
  if (!match || (match[1] === "" && match[2] === "")) {
    throw new DocDBError("INVALID_REQUEST", `${flag} takes FROM:TO (either may be left out), e.g. ${flag} 120:480, got "${echo(value)}"`);
  }
  return [match[1] ? Number(match[1]) : undefined, match[2] ? Number(match[2]) : undefined];
}

export function rangeFromOptions(options: { range?: string; lines?: string; page?: string }): DocumentRange | undefined {
  if ([options.range, options.lines, options.page].filter((o) => o !== undefined).length > 1) {
    throw new DocDBError("INVALID_REQUEST", "give one of --range, --lines and --page");
  }
  if (options.page !== undefined) {
    if (!/^\s*\d+\s*$/.test(options.page))
      throw new DocDBError("INVALID_REQUEST", `--page takes a page number, e.g. --page 3, got "${options.page}"`);
    return { page: Number(options.page) };
  }
  if (options.range !== undefined) {
    const [start, end] = parsePair(options.range, "--range");
    return { start, end };
  }
  if (options.lines !== undefined) {
    const [line_start, line_end] = parsePair(options.lines, "--lines");
    return { line_start, line_end };
  }
  return undefined;
}

export function getCommand(): Command {
  return new Command("get")
    .description("show a stored document (or part of it) with its metadata and chunk offsets")
    .argument("<doc_id>")
    .option("--db <name>", "database", "vectors")
    .option("--range <from:to>", "only characters from..to (to exclusive), e.g. a search result's [start-end]")
    .option("--lines <from:to>", "only lines from..to (1-based, inclusive)")
    .option("--page <n>", "only page n of a PDF (or slide n of a deck): the chunks that hold its text")
    .option("--json", "print JSON")
    .action(
      action(async (docdb, docId: string, options: { db: string; range?: string; lines?: string; page?: string; json?: boolean }) => {
        const doc = await (await docdb.database(options.db)).getDocument(docId, rangeFromOptions(options));
        if (options.json) return printJson(doc);
        const pending = doc.chunks.filter((c) => !c.embedded).length;
        process.stdout.write(
          [
            `id:        ${doc.doc_id}`,
            ...(doc.key ? [`key:       ${doc.key}`] : []),
            ...(doc.title ? [`title:     ${doc.title}`] : []),
            ...(doc.source ? [`source:    ${doc.source}`] : []),
            `metadata:  ${JSON.stringify(doc.metadata)}`,
            `chunks:    ${doc.chunks.length}${pending > 0 ? ` (${pending} pending embedding)` : ""}`,
            `created:   ${doc.created_at}`,
            ...(doc.page ? [`showing:   page ${doc.page.number} of ${doc.page.of}`] : []),
            ...(doc.range && !doc.page
              ? [
                  `showing:   characters ${doc.range.start}-${doc.range.end} of ${doc.length}, lines ${doc.range.line_start}-${doc.range.line_end} of ${doc.lines}`,
                ]
              : []),
            "",
            doc.text,
            "",
          ].join("\n"),
        );
      }),
    );
}
