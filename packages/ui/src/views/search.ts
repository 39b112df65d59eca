// Search: one box, mode, collection, result count and filter; passages with the query's words
// marked, the score and why (keyword rank, vector rank, fused), locators, and the query time.
import { useEffect, useState } from "preact/hooks";
import { api, dbPath } from "../api.js";
import { ErrorNote, Warnings } from "../components.js";
import { highlight } from "../highlight.js";
import { html } from "../html.js";
import { type MessageKey, t } from "../i18n.js";
import type { CollectionInfo, Passage, SearchAnswer } from "../types.js";
import { FilterBuilder } from "./filter.js";

function locator(p: Passage): string[] {
  const parts: string[] = [];
  if (p.line_start !== undefined && p.line_end !== undefined) parts.push(t("lines", { a: p.line_start, b: p.line_end }));
  const at = p.locator;
  if (at?.page !== undefined) parts.push(t("page", { p: at.page }));
  if (at?.slide !== undefined) parts.push(t("slide", { n: at.slide }));
  if (at?.sheet !== undefined) parts.push(t("sheetRow", { s: at.sheet, r: at.row ?? 1 }));
  else if (at?.row !== undefined) parts.push(t("row", { r: at.row }));
  if (at?.section) parts.push(at.section);
  return parts;
}

function Result(props: { passage: Passage; terms: string[]; rank: number }) {
  const p = props.passage;
  const why = p.why;
  return html`<li class="result">
    <article aria-labelledby=${`r-${props.rank}`}>
      <h3 id=${`r-${props.rank}`}>
        <a href=${`#/doc/${encodeURIComponent(p.doc_id)}?chunk=${encodeURIComponent(p.chunk_id)}&at=${p.start}`} title=${t("openAt")}>${p.title || p.source || p.doc_id}</a>
      </h3>
      <p class="where">
        ${p.heading ? html`<span class="heading">${p.heading}</span>` : null}
        ${locator(p).map((l) => html`<span>${l}</span>`)}
        ${p.collection ? html`<span>${p.collection}</span>` : null}
        ${p.stale ? html`<span class="stale">${t("stale")}</span>` : null}
      </p>
      <p class="passage">${highlight(p.text ?? "", props.terms)}</p>
      <dl class="why">
        <div><dt>${t("score")}</dt><dd class="score">${p.score.toFixed(3)}</dd></div>
        <div><dt>${t("keywordRank")}</dt><dd>${why.keyword_rank ?? "—"}</dd></div>
        <div><dt>${t("vectorRank")}</dt><dd>${why.vector_rank ?? "—"}</dd></div>
        ${why.fused !== null ? html`<div><dt>${t("fused")}</dt><dd>${why.fused.toFixed(3)}</dd></div>` : null}
      </dl>
    </article>
  </li>`;
}

export function SearchView(props: { db: string }) {
  const [query, setQuery] = useState("");
  const [mode, setMode] = useState("hybrid");
  const [collection, setCollection] = useState("");
  const [topK, setTopK] = useState("10");
  const [filter, setFilter] = useState("");
  const [collections, setCollections] = useState<CollectionInfo[]>([]);
  const [answer, setAnswer] = useState<SearchAnswer | null>(null);
  const [renderMs, setRenderMs] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // Searches answered so far: tests and the bench wait for it to change.
  const [answered, setAnswered] = useState(0);

  useEffect(() => {
    api<{ collections: CollectionInfo[] }>("GET", dbPath(props.db, "/collections"))
      .then((r) => setCollections(r.collections))
      .catch(() => setCollections([]));
  }, [props.db]);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!query.trim()) return;
    setBusy(true);
    setError(null);
    setRenderMs(null);
    const started = performance.now();
    try {
      const body = { query, mode, top_k: Number(topK), collection: collection || undefined, filter: filter.trim() || undefined };
      const found = await api<SearchAnswer>("POST", dbPath(props.db, "/search"), body);
      setAnswer(found);
      // Measured to after the frame that paints the results (the next task after that frame's
      // animation callbacks); scripts/bench-ui.mjs reads it.
      requestAnimationFrame(() =>
        setTimeout(() => {
          setRenderMs(performance.now() - started);
          setAnswered((n) => n + 1);
        }, 0),
      );
    } catch (err) {
      setError(err);
      setAnswer(null);
    } finally {
      setBusy(false);
    }
  };

  return html`<section aria-labelledby="search-title" id="search" data-answered=${answered}>
    <h2 id="search-title">${t("search")}</h2>
    <form role="search" class="search-form" onSubmit=${submit}>
      <div class="row">
        <label class="grow">${t("query")} <input id="query" type="search" value=${query} onInput=${(e: Event) => setQuery((e.target as HTMLInputElement).value)} autocomplete="off" /></label>
        <label>${t("mode")}
          <select id="mode" value=${mode} onChange=${(e: Event) => setMode((e.target as HTMLSelectElement).value)}>
            ${["hybrid", "keyword", "vector"].map((m) => html`<option value=${m}>${t(m as MessageKey)}</option>`)}
          </select>
        </label>
        <label>${t("collection")}
          <select id="collection" value=${collection} onChange=${(e: Event) => setCollection((e.target as HTMLSelectElement).value)}>
            <option value="">${t("anyCollection")}</option>
            ${collections.map((c) => html`<option value=${c.name}>${c.name}</option>`)}
          </select>
        </label>
        <label>${t("topK")} <input id="top-k" type="number" min="1" max="100" value=${topK} onInput=${(e: Event) => setTopK((e.target as HTMLInputElement).value)} /></label>
        <button type="submit" id="run-search" disabled=${busy}>${t("run")}</button>
      </div>
      <details><summary>${t("filter")}</summary><${FilterBuilder} json=${filter} onChange=${setFilter} /></details>
    </form>
    <${ErrorNote} error=${error} />
    ${
      answer
        ? html`<div class="answer" aria-live="polite">
            <p id="search-took" data-render-ms=${renderMs ?? ""} data-took-ms=${answer.took_ms}>${t("resultsIn", { n: answer.results.length, ms: answer.took_ms })}</p>
            <${Warnings} warnings=${answer.warnings} />
            ${answer.results.length === 0 ? html`<p>${t("noResults")}</p>` : null}
            <ol class="results">${answer.results.map((p, i) => html`<${Result} key=${p.chunk_id} passage=${p} terms=${answer.terms} rank=${i + 1} />`)}</ol>
          </div>`
        : null
    }
  </section>`;
}
