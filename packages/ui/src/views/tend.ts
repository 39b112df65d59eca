// Tend: insert text or files, import a folder or update a collection with a live progress bar
// (server-sent events), embed pending chunks, rebuild the vector index, delete a collection.
import { useEffect, useState } from "preact/hooks";
import { api, dbPath, stream } from "../api.js";
import { Confirm, ErrorNote, Progress } from "../components.js";
import { html } from "../html.js";
import { t } from "../i18n.js";
import type { CollectionInfo } from "../types.js";

interface ImportProgress {
  phase: "scan" | "files" | "embed";
  files_done: number;
  files_total: number;
  embedded: number;
  embed_total: number;
}

/** Import progress as one percentage: writing files is the first 90%, embedding the rest. */
function importPercent(p: ImportProgress): number {
  if (p.phase === "scan") return 0;
  if (p.phase === "files") return p.files_total > 0 ? (90 * p.files_done) / p.files_total : 90;
  return 90 + (p.embed_total > 0 ? (10 * p.embedded) / p.embed_total : 0);
}

function InsertForm(props: { db: string }) {
  const [title, setTitle] = useState("");
  const [text, setText] = useState("");
  const [note, setNote] = useState("");
  const [error, setError] = useState<unknown>(null);
  const insertOne = async (body: { text: string; title?: string; source?: string }) => {
    const r = await api<{ doc_id: string; chunk_count: number }>("POST", dbPath(props.db, "/documents"), body);
    setNote(t("inserted", { id: r.doc_id, n: r.chunk_count }));
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      await insertOne({ text, title: title || undefined });
      setText("");
      setTitle("");
    } catch (err) {
      setError(err);
    }
  };
  const files = async (e: Event) => {
    setError(null);
    try {
      for (const file of Array.from((e.target as HTMLInputElement).files ?? [])) {
        await insertOne({ text: await file.text(), title: file.name, source: file.name });
      }
    } catch (err) {
      setError(err);
    }
  };
  return html`<form class="card" onSubmit=${submit} aria-labelledby="insert-title">
    <h3 id="insert-title">${t("insertText")}</h3>
    <label class="block">${t("title")} <input id="insert-title-input" value=${title} onInput=${(e: Event) => setTitle((e.target as HTMLInputElement).value)} /></label>
    <label class="block">${t("text")} <textarea id="insert-text" rows="5" required value=${text} onInput=${(e: Event) => setText((e.target as HTMLTextAreaElement).value)}></textarea></label>
    <button type="submit">${t("insert")}</button>
    <label class="block">${t("dropFiles")} <input type="file" multiple accept=".txt,.md,.markdown,.csv,.json,text/*" onChange=${files} /></label>
    ${note ? html`<p role="status">${note}</p>` : null}
    <${ErrorNote} error=${error} />
  </form>`;
}

function Task(props: { id: string; label: string; run: (onProgress: (percent: number, detail: string) => void) => Promise<string> }) {
  const [percent, setPercent] = useState<number | null>(null);
  const [detail, setDetail] = useState("");
  const [error, setError] = useState<unknown>(null);
  const start = async () => {
    setError(null);
    setPercent(0);
    try {
      const summary = await props.run((p, d) => {
        setPercent(p);
        setDetail(d);
      });
      setPercent(100);
      setDetail(summary);
    } catch (err) {
      setError(err);
    }
  };
  return html`<div class="task">
    <button type="button" id=${props.id} onClick=${start}>${props.label}</button>
    ${percent !== null ? html`<${Progress} id=${`${props.id}-progress`} value=${percent} label=${t("progress")} detail=${detail} />` : null}
    <${ErrorNote} error=${error} />
  </div>`;
}

function runImport(db: string, name: string, onProgress: (percent: number, detail: string) => void): Promise<string> {
  return stream<{ added: number; updated: number; removed: number; unchanged: number }>(
    dbPath(db, `/collections/${encodeURIComponent(name)}/import`),
    {},
    (_event, data) => {
      const p = data as ImportProgress;
      onProgress(importPercent(p), `${p.phase}: ${p.files_done}/${p.files_total}`);
    },
  ).then((s) => t("imported", { added: s.added, updated: s.updated, removed: s.removed, unchanged: s.unchanged }));
}

export function TendView(props: { db: string; admin: boolean; onChanged: () => void }) {
  const [collections, setCollections] = useState<CollectionInfo[]>([]);
  const [name, setName] = useState("");
  const [folder, setFolder] = useState("");
  const [description, setDescription] = useState("");
  const [percent, setPercent] = useState<number | null>(null);
  const [detail, setDetail] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [toDelete, setToDelete] = useState("");
  const [asking, setAsking] = useState(false);
  const refresh = () =>
    api<{ collections: CollectionInfo[] }>("GET", dbPath(props.db, "/collections"))
      .then((r) => setCollections(r.collections))
      .catch(setError);
  useEffect(() => {
    refresh();
  }, [props.db]);

  const importFolder = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setPercent(0);
    try {
      if (!collections.some((c) => c.name === name))
        await api("POST", dbPath(props.db, "/collections"), { name, source: folder, description });
      const summary = await runImport(props.db, name, (p, d) => {
        setPercent(p);
        setDetail(d);
      });
      setPercent(100);
      setDetail(summary);
      refresh();
      props.onChanged();
    } catch (err) {
      setError(err);
    }
  };
  const removeCollection = async () => {
    setAsking(false);
    try {
      await api("DELETE", dbPath(props.db, `/collections/${encodeURIComponent(toDelete)}`));
      setToDelete("");
      refresh();
      props.onChanged();
    } catch (err) {
      setError(err);
    }
  };

  return html`<section aria-labelledby="tend-title">
    <h2 id="tend-title">${t("tend")}</h2>
    <${InsertForm} db=${props.db} />
    <form class="card" onSubmit=${importFolder} aria-labelledby="import-title">
      <h3 id="import-title">${t("importFolder")}</h3>
      <label class="block">${t("collection")} <input id="import-name" required pattern="[A-Za-z0-9_\\-]+" value=${name} onInput=${(e: Event) => setName((e.target as HTMLInputElement).value)} /></label>
      ${
        props.admin
          ? html`<label class="block">${t("folder")} <input id="import-folder" value=${folder} onInput=${(e: Event) => setFolder((e.target as HTMLInputElement).value)} /></label>
            <label class="block">${t("description")} <input id="import-description" value=${description} onInput=${(e: Event) => setDescription((e.target as HTMLInputElement).value)} /></label>`
          : null
      }
      <button type="submit" id="run-import">${t("importRun")}</button>
      ${percent !== null ? html`<${Progress} id="import-progress" value=${percent} label=${t("progress")} detail=${detail} />` : null}
      <${ErrorNote} error=${error} />
    </form>
    <div class="card">
      ${collections.map((c) => html`<${Task} id=${`update-${c.name}`} label=${`${t("update")} ${c.name}`} run=${(p: (n: number, d: string) => void) => runImport(props.db, c.name, p)} />`)}
      <${Task} id="embed-pending" label=${t("embedPending")} run=${(p: (n: number, d: string) => void) =>
        stream<{ embedded: number; remaining: number }>(dbPath(props.db, "/embed"), {}, (_e, d) => {
          const x = d as { done: number; total: number };
          p(x.total > 0 ? (100 * x.done) / x.total : 0, `${x.done}/${x.total}`);
        }).then((r) => `${t("done")} ${r.embedded} / ${r.remaining}`)} />
      <${Task} id="rebuild-index" label=${t("rebuildIndex")} run=${(p: (n: number, d: string) => void) =>
        stream(dbPath(props.db, "/rebuild-index"), {}, (_e, d) => {
          const x = d as { phase: string; done: number; total: number };
          p(x.total > 0 ? (100 * x.done) / x.total : 0, `${x.phase}: ${x.done}/${x.total}`);
        }).then(() => t("done"))} />
    </div>
    <div class="card">
      <h3 id="delete-collection-title">${t("deleteCollection")}</h3>
      <label>${t("collection")}
        <select id="delete-collection-name" value=${toDelete} onChange=${(e: Event) => setToDelete((e.target as HTMLSelectElement).value)}>
          <option value="">—</option>
          ${collections.map((c) => html`<option value=${c.name}>${c.name}</option>`)}
        </select>
      </label>
      <button type="button" class="danger" id="delete-collection" disabled=${!toDelete} onClick=${() => setAsking(true)}>${t("delete")}</button>
      ${asking ? html`<${Confirm} message=${t("confirmDeleteCollection", { name: toDelete })} onConfirm=${removeCollection} onCancel=${() => setAsking(false)} />` : null}
    </div>
  </section>`;
}
