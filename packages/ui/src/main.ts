// The page: asks for the token when the server wants one, then routes by the URL's hash to
// search, browse, a document, tend or memory, for the database picked in the header.
import "./style.css";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ApiError, api, setToken, token } from "./api.js";
import { ErrorNote } from "./components.js";
import { html } from "./html.js";
import { lang, t } from "./i18n.js";
import type { DatabaseInfo, Me } from "./types.js";
import { BrowseView } from "./views/browse.js";
import { DocumentPage } from "./views/document.js";
import { MemoryView } from "./views/memory.js";
import { SearchView } from "./views/search.js";
import { TendView } from "./views/tend.js";

function useHash(): string {
  const [hash, setHash] = useState(location.hash || "#/search");
  useEffect(() => {
    const on = () => setHash(location.hash || "#/search");
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  return hash;
}

function TokenForm(props: { refused: boolean; onToken: () => void }) {
  const [value, setValue] = useState("");
  return html`<main id="main" class="login">
    <h1>${t("tokenTitle")}</h1>
    <form onSubmit=${(e: Event) => {
      e.preventDefault();
      setToken(value.trim());
      props.onToken();
    }}>
      <p>${t("tokenHelp")}</p>
      ${props.refused ? html`<p class="error" role="alert">${t("wrongToken")}</p>` : null}
      <label class="block">${t("token")} <input id="token" type="password" autocomplete="current-password" required value=${value} onInput=${(e: Event) => setValue((e.target as HTMLInputElement).value)} /></label>
      <button type="submit">${t("signIn")}</button>
    </form>
  </main>`;
}

function App() {
  const hash = useHash();
  const [me, setMe] = useState<Me | null>(null);
  const [needToken, setNeedToken] = useState(false);
  const [refused, setRefused] = useState(false);
  const [databases, setDatabases] = useState<DatabaseInfo[]>([]);
  const [db, setDb] = useState(sessionStorage.getItem("docdb.db") ?? "");
  const [error, setError] = useState<unknown>(null);
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    api<Me>("GET", "/me")
      .then((m) => {
        setMe(m);
        setNeedToken(false);
        return api<{ databases: DatabaseInfo[] }>("GET", "/databases");
      })
      .then((r) => {
        setDatabases(r.databases);
        if (!r.databases.some((d) => d.name === db)) setDb(r.databases[0]?.name ?? "");
      })
      .catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 401) {
          setRefused(token() !== null);
          setNeedToken(true);
        } else setError(err);
      });
  }, [generation]);

  if (needToken) return html`<${TokenForm} refused=${refused} onToken=${() => setGeneration(generation + 1)} />`;
  const [path = "/search", search = ""] = hash.slice(1).split("?");
  const section = path.split("/")[1] ?? "search";
  const readOnly = me?.access === "read";
  const link = (name: "search" | "browse" | "tend" | "memory") =>
    html`<li><a href=${`#/${name}`} aria-current=${section === name ? "page" : undefined}>${t(name)}</a></li>`;
  let view: unknown = html`<p>${t("loading")}</p>`;
  if (me && db) {
    if (section === "doc") {
      const params = new URLSearchParams(search);
      const at = params.get("at");
      view = html`<${DocumentPage} db=${db} id=${decodeURIComponent(path.split("/")[2] ?? "")} at=${at === null ? undefined : Number(at)}
        chunkId=${params.get("chunk") ?? undefined} readOnly=${readOnly} />`;
    } else if (section === "browse") view = html`<${BrowseView} db=${db} databases=${databases} />`;
    else if (section === "tend" && !readOnly)
      view = html`<${TendView} db=${db} admin=${me.access === "admin"} onChanged=${() => setGeneration(generation + 1)} />`;
    else if (section === "memory") view = html`<${MemoryView} db=${db} />`;
    else view = html`<${SearchView} db=${db} />`;
  } else if (me) view = html`<p>${t("nothing")}</p>`;

  return html`<a class="skip" href="#main" onClick=${(e: Event) => {
    e.preventDefault();
    document.getElementById("main")?.focus();
  }}>${t("skip")}</a>
    <header>
      <p class="brand">${t("appTitle")}</p>
      <nav aria-label=${t("nav")}><ul>${link("search")}${link("browse")}${readOnly ? null : link("tend")}${link("memory")}</ul></nav>
      <label class="db-picker">${t("database")}
        <select id="database" value=${db} onChange=${(e: Event) => {
          const name = (e.target as HTMLSelectElement).value;
          sessionStorage.setItem("docdb.db", name);
          setDb(name);
        }}>${databases.map((d) => html`<option value=${d.name}>${d.name}</option>`)}</select>
      </label>
      ${readOnly ? html`<span class="badge">${t("readOnly")}</span>` : null}
      ${
        token()
          ? html`<button type="button" onClick=${() => {
              setToken(null);
              setGeneration(generation + 1);
            }}>${t("signOut")}</button>`
          : null
      }
    </header>
    <main id="main" tabindex="-1">
      <h1 class="visually-hidden">docdb</h1>
      <${ErrorNote} error=${error} />
      ${view}
    </main>`;
}

document.documentElement.lang = lang;
const root = document.getElementById("app");
if (root) render(html`<${App} />`, root);
