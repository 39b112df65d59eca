// One document: its fields and metadata, then its chunks in order with their boundaries
// (characters, lines), pending state and code symbols; opened at a passage when asked.
import { useEffect, useState } from "preact/hooks";
import { api, dbPath } from "../api.js";
import { Confirm, ErrorNote, shortDate } from "../components.js";
import { html } from "../html.js";
import { t } from "../i18n.js";

interface Chunk {
  chunk_id: string;
  index: number;
  start: number;
  end: number;
  embedded: boolean;
  line_start?: number;
  line_end?: number;
  symbol?: string;
  symbol_kind?: string;
  text: string;
}

interface DocumentView {
  doc_id: string;
  key: string | null;
  title: string | null;
  source: string | null;
  length: number;
  lines: number;
  metadata: Record<string, unknown>;
  collection: string | null;
  created_at: string;
  updated_at: string;
  chunks: Chunk[];
}

/** The chunk a link asked for: by id (the passage's best chunk), else the one holding offset `at`. */
function targetOf(chunks: Chunk[], chunkId?: string, at?: number): Chunk | undefined {
  return chunks.find((c) => c.chunk_id === chunkId) ?? (at === undefined ? undefined : chunks.find((c) => at >= c.start && at < c.end));
}

export function DocumentPage(props: { db: string; id: string; at?: number; chunkId?: string; readOnly: boolean }) {
  const [doc, setDoc] = useState<DocumentView | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [asking, setAsking] = useState(false);
  const [deleted, setDeleted] = useState(false);

  useEffect(() => {
    setDoc(null);
    api<DocumentView>("GET", dbPath(props.db, `/documents/${encodeURIComponent(props.id)}`))
      .then(setDoc)
      .catch(setError);
  }, [props.db, props.id]);

  useEffect(() => {
    const target = doc ? targetOf(doc.chunks, props.chunkId, props.at) : undefined;
    const element = target ? document.getElementById(`chunk-${target.index}`) : null;
    element?.scrollIntoView({ block: "start" });
    element?.focus();
  }, [doc, props.at, props.chunkId]);

  const remove = async () => {
    setAsking(false);
    try {
      await api("DELETE", dbPath(props.db, `/documents/${encodeURIComponent(props.id)}`));
      setDeleted(true);
    } catch (err) {
      setError(err);
    }
  };

  if (deleted) return html`<p role="status" id="deleted-note">${t("deleted")}</p>`;
  if (error) return html`<${ErrorNote} error=${error} />`;
  if (!doc) return html`<p>${t("loading")}</p>`;
  const meta = Object.entries(doc.metadata);
  const target = targetOf(doc.chunks, props.chunkId, props.at);
  return html`<section aria-labelledby="doc-title" class="document">
    <h2 id="doc-title">${doc.title || doc.source || doc.doc_id}</h2>
    <dl class="fields">
      <div><dt>ID</dt><dd><code>${doc.doc_id}</code></dd></div>
      ${doc.key ? html`<div><dt>key</dt><dd>${doc.key}</dd></div>` : null}
      ${doc.source ? html`<div><dt>${t("source")}</dt><dd>${doc.source}</dd></div>` : null}
      ${doc.collection ? html`<div><dt>${t("collection")}</dt><dd>${doc.collection}</dd></div>` : null}
      <div><dt>${t("length")}</dt><dd>${doc.length} / ${doc.lines}</dd></div>
      <div><dt>${t("created")}</dt><dd>${shortDate(doc.created_at)}</dd></div>
      <div><dt>${t("updated")}</dt><dd>${shortDate(doc.updated_at)}</dd></div>
    </dl>
    ${
      meta.length > 0
        ? html`<h3>${t("metadata")}</h3><dl class="fields">${meta.map(([k, v]) => html`<div><dt>${k}</dt><dd><code>${JSON.stringify(v)}</code></dd></div>`)}</dl>`
        : null
    }
    ${props.readOnly ? null : html`<button type="button" class="danger" id="delete-document" onClick=${() => setAsking(true)}>${t("delete")}</button>`}
    ${asking ? html`<${Confirm} message=${t("confirmDeleteDoc", { n: doc.chunks.length })} onConfirm=${remove} onCancel=${() => setAsking(false)} />` : null}
    <h3>${t("chunks")} (${doc.chunks.length})</h3>
    <ol class="chunks">
      ${doc.chunks.map(
        (c) => html`<li id=${`chunk-${c.index}`} tabindex="-1" class=${`chunk${c === target ? " target" : ""}`}>
          <p class="boundary">
            <strong>${t("chunk", { i: c.index + 1 })}</strong>
            <span>${t("chars", { a: c.start, b: c.end })}</span>
            ${c.line_start !== undefined ? html`<span>${t("lines", { a: c.line_start, b: c.line_end ?? c.line_start })}</span>` : null}
            <span class=${c.embedded ? "ok" : "pending"}>${c.embedded ? t("isEmbedded") : t("isPending")}</span>
            ${c.symbol ? html`<span><code>${c.symbol_kind ? `${c.symbol_kind} ` : ""}${c.symbol}</code></span>` : null}
          </p>
          <pre class="chunk-text">${c.text}</pre>
        </li>`,
      )}
    </ol>
  </section>`;
}
