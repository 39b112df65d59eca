export const BLOCK_BEGIN = "<!-- docdb:begin (written by `docdb install`; `docdb uninstall` removes this block) -->";
export const BLOCK_END = "<!-- docdb:end -->";

function guidance(db: string | undefined): string {
  const which = db ? ` (database \`${db}\`)` : "";
  return `Use the docdb MCP tools${which} to look things up in the documents stored there: notes, docs,
imported folders.

- **Search docdb** for questions in words ("how do we rotate tokens?", "what did we decide about
  caching?"), in any language, when you do not know the exact wording or the file: call
  \`find_similar_documents\` (or a collection's \`search_<name>\` tool) with the question itself.
- **Use grep** instead for exact strings: identifiers, error messages, file names, or when you
  need every occurrence rather than the best few.
- **Reading results**: they come best first. \`score\` only ranks results within one answer (higher
  is better; it is not a percentage). \`doc_id\` with \`start\`/\`end\` locates the passage, and
  \`source\` with \`line_start\`-\`line_end\` points at the file when there is one. A \`stale\` result
  comes from a file that changed since it was imported: check the file itself.
- Call \`get_document\` with a \`doc_id\` only when the passage is not enough. Store something worth
  finding later with \`insert_document\`.
- **Memory**: before working out a question (a fix, a command, a decision), try \`query_qa\` with the
  question and a \`context\` (what you are working on). After solving one, store it with
  \`store_qa {question, answer, topic}\` so the next session finds it; when \`similar\` lists earlier
  questions, \`merge_knowledge\` merges them into one knowledge record.`;
}

/** A Claude Code skill: the description decides when it is loaded. */
export function skillFile(db: string | undefined): string {
  return `---
name: docdb
description: Search the docdb document database (MCP tools find_similar_documents, get_document) for answers in stored notes, docs and imported folders, and recall or store what earlier sessions worked out (query_qa, store_qa); use it for questions in words, grep for exact strings.
---

# docdb

${guidance(db)}
`;
}

/** The marked block for AGENTS.md, GEMINI.md and the like. */
export function instructionBlock(db: string | undefined, eol = "\n"): string {
  return `${BLOCK_BEGIN}\n## docdb\n\n${guidance(db)}\n${BLOCK_END}\n`.replace(/\n/g, eol);
}

/** Where the block is in `text` (from its begin marker to the end of its end marker's line), if it is. */
export function findBlock(text: string): { start: number; end: number } | undefined {
  const start = text.indexOf(BLOCK_BEGIN);
  if (start < 0) return undefined;
  const endMarker = text.indexOf(BLOCK_END, start);
  if (endMarker < 0) return undefined;
  let end = endMarker + BLOCK_END.length;
  if (text.startsWith("\r\n", end)) end += 2;
  else if (text.startsWith("\n", end)) end += 1;
  return { start, end };
}

/** `text` with the block added (after a blank line) or replaced. */
export function setBlock(text: string, block: string): string {
  const found = findBlock(text);
  if (found) return text.slice(0, found.start) + block + text.slice(found.end);
  if (text === "") return block;
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  return text + (text.endsWith("\n") ? eol : eol + eol) + block;
}

/** `text` without the block (and the blank line `setBlock` put before it). */
export function removeBlock(text: string): string {
  const found = findBlock(text);
  if (!found) return text;
  let start = found.start;
  const before = text.slice(0, start);
  const sep = /(\r?\n)(\r?\n)$/.exec(before);
  if (sep && found.end === text.length) start -= sep[2]!.length;
  return text.slice(0, start) + text.slice(found.end);
}
