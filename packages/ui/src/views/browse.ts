// Browse: databases with counts, model, engine and index state; the selected database's
// collections; its documents in sortable, paged, filterable pages.
import { useEffect, useState } from "preact/hooks";
import { api, dbPath } from "../api.js";
import { ErrorNote, shortDate } from "../components.js";
import { html } from "../html.js";
import { formatNumber, type MessageKey, t } from "../i18n.js";
import type { CollectionInfo, DatabaseInfo } from "../types.js";

interface DocRow {
  doc_id: string;
  title: string | null;
  source: string | null;
  collection: string | null;
  length: number;
  created_at: string;
  chunk_count?: number;
  pending?: number;
}

interface DocPage {
  documents: DocRow[];
  total: number | null;
  offset: number;
  limit: number;
}

const PAGE = 25;

function indexState(d: DatabaseInfo): string {
  if (!d.index) return t("none");
  return [d.index.state, d.index.size !== undefined ? formatNumber(Number(d.index.size)) : ""].filter(Boolean).join(" · ");
}

export function DatabasesTable(props: { databases: DatabaseInfo[] }) {
  return html`<table class="grid" id="databases">
    <caption>${t("databases")}</caption>
    <thead><tr>${(["name", "engine", "documents", "chunks", "embedded", "pending", "model", "index"] as MessageKey[]).map((k) => html`<th scope="col">${t(k)}</th>`)}</tr></thead>
    <tbody>
      ${props.databases.map(
        (d) => html`<tr>
          <th scope="row">${d.name}</th><td>${d.engine}</td><td class="num">${formatNumber(d.documents)}</td><td class="num">${formatNumber(d.chunks)}</td>
          <td class="num">${formatNumber(d.embedded)}</td><td class="num">${formatNumber(d.pending)}</td>
          <td>${d.model ? `${d.model.provider}/${d.model.model} (${d.model.dimensions})` : t("none")}</td><td>${indexState(d)}</td>
        </tr>`,
      )}
    </tbody>
  </table>`;
}

export function CollectionsTable(props: { collections: CollectionInfo[] }) {
  if (props.collections.length === 0) return null;
  return html`<table class="grid" id="collections">
    <caption>${t("collections")}</caption>
    <thead><tr>${(["name", "sourceFolder", "documents", "chunks", "pending", "lastImport", "watched"] as MessageKey[]).map((k) => html`<th scope="col">${t(k)}</th>`)}</tr></thead>
    <tbody>
      ${props.collections.map(
        (c) => html`<tr>
          <th scope="row">${c.name}</th><td><code>${c.source}</code></td><td class="num">${formatNumber(c.documents)}</td>
          <td class="num">${formatNumber(c.chunks)}</td><td class="num">${formatNumber(c.pending)}</td>
          <td>${shortDate(c.last_import_at)}</td><td>${c.watched ? t("yes") : t("no")}</td>
        </tr>`,
      )}
    </tbody>
  </table>`;
}

function DocumentsTable(props: { db: string; collections: CollectionInfo[] }) {
  const [sort, setSort] = useState("created_at");
  const [order, setOrder] = useState<"asc" | "desc">("desc");
  const [offset, setOffset] = useState(0);
  const [collection, setCollection] = useState("");
  const [filter, setFilter] = useState("");
  const [filterText, setFilterText] = useState("");
  const [page, setPage] = useState<DocPage | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    const q = new URLSearchParams({ sort, order, offset: String(offset), limit: String(PAGE) });
    if (collection) q.set("collection", collection);
    if (filter) q.set("filter", filter);
    api<DocPage>("GET", dbPath(props.db, `/documents?${q}`))
      .then((p) => {
        setPage(p);
        setError(null);
      })
      .catch(setError);
  }, [props.db, sort, order, offset, collection, filter]);

  const header = (key: string, label: MessageKey) => {
    const active = sort === key;
    return html`<th scope="col" aria-sort=${active ? (order === "asc" ? "ascending" : "descending") : "none"}>
      <button type="button" class="sort" onClick=${() => {
        setOrder(active && order === "asc" ? "desc" : "asc");
        setSort(key);
        setOffset(0);
      }}>${t(label)}${active ? (order === "asc" ? " ▲" : " ▼") : ""}</button>
    </th>`;
  };
  // A filtered listing has no total: the pager then knows only whether this page was full.
  const shown = page?.documents.length ?? 0;
  const total = page?.total ?? (shown === PAGE ? offset + PAGE + 1 : offset + shown);
  return html`<div>
    <label>${t("collection")}
      <select id="documents-collection" value=${collection} onChange=${(e: Event) => {
        setCollection((e.target as HTMLSelectElement).value);
        setOffset(0);
      }}>
        <option value="">${t("anyCollection")}</option>
        ${props.collections.map((c) => html`<option value=${c.name}>${c.name}</option>`)}
      </select>
    </label>
    <form class="inline" onSubmit=${(e: Event) => {
      e.preventDefault();
      setFilter(filterText.trim());
      setOffset(0);
    }}>
      <label>${t("filterJson")} <input id="documents-filter" value=${filterText} placeholder='{"lang":"ja"}' onInput=${(e: Event) => setFilterText((e.target as HTMLInputElement).value)} /></label>
      <button type="submit">${t("apply")}</button>
    </form>
    <${ErrorNote} error=${error} />
    <table class="grid" id="documents">
      <caption>${t("documents")}</caption>
      <thead><tr>${header("title", "title")}${header("source", "source")}${header("collection", "collection")}${header("length", "length")}<th scope="col">${t("chunks")}</th>${header("created_at", "created")}</tr></thead>
      <tbody>
        ${(page?.documents ?? []).map(
          (d) => html`<tr>
            <td><a href=${`#/doc/${encodeURIComponent(d.doc_id)}`}>${d.title || d.doc_id}</a></td>
            <td>${d.source ?? ""}</td><td>${d.collection ?? ""}</td><td class="num">${formatNumber(Number(d.length))}</td>
            <td class="num">${d.chunk_count ?? ""}${d.pending ? html` <span class="pending">(${d.pending} ${t("isPending")})</span>` : ""}</td>
            <td>${shortDate(d.created_at)}</td>
          </tr>`,
        )}
      </tbody>
    </table>
    <nav class="pager" aria-label=${t("documents")}>
      <button type="button" disabled=${offset === 0} onClick=${() => setOffset(Math.max(0, offset - PAGE))}>${t("previous")}</button>
      <span>${page?.total === null ? `${offset + (shown ? 1 : 0)}–${offset + shown}` : t("pageOf", { from: total === 0 ? 0 : offset + 1, to: Math.min(offset + PAGE, total), total: formatNumber(total) })}</span>
      <button type="button" disabled=${offset + PAGE >= total} onClick=${() => setOffset(offset + PAGE)}>${t("next")}</button>
    </nav>
  </div>`;
}

export function BrowseView(props: { db: string; databases: DatabaseInfo[] }) {
  const [collections, setCollections] = useState<CollectionInfo[]>([]);
  useEffect(() => {
    api<{ collections: CollectionInfo[] }>("GET", dbPath(props.db, "/collections"))
      .then((r) => setCollections(r.collections))
      .catch(() => setCollections([]));
  }, [props.db]);
  return html`<section aria-labelledby="browse-title">
    <h2 id="browse-title">${t("browse")}</h2>
    <${DatabasesTable} databases=${props.databases} />
    <${CollectionsTable} collections=${collections} />
    <${DocumentsTable} db=${props.db} collections=${collections} />
  </section>`;
}
