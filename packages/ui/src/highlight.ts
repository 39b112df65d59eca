// Marks the query's words in a passage with <mark>, case-insensitively, longest words first.
import { html } from "./html.js";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export function highlight(text: string, terms: readonly string[]): unknown[] {
  const words = [...terms].filter((w) => w.length > 0).sort((a, b) => b.length - a.length);
  if (words.length === 0) return [text];
  const pattern = new RegExp(`(${words.map(escapeRegExp).join("|")})`, "giu");
  return text.split(pattern).map((part, i) => (i % 2 === 1 ? html`<mark>${part}</mark>` : part));
}
