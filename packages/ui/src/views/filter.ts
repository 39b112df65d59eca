// The filter builder: rows of field, operator and value (the operators of --filter), shown and
// editable as the JSON a search sends.
import { useState } from "preact/hooks";
import { html } from "../html.js";
import { t } from "../i18n.js";

export const OPERATORS = ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists", "$prefix"] as const;

interface Row {
  field: string;
  op: (typeof OPERATORS)[number];
  value: string;
}

function parseValue(op: Row["op"], text: string): unknown {
  if (op === "$in" || op === "$nin") return text.split(",").map((v) => parseValue("$eq", v.trim()));
  if (op === "$exists") return text.trim() !== "false";
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The rows as one filter object (AND), or undefined when no row names a field. */
export function rowsToFilter(rows: Row[]): Record<string, unknown> | undefined {
  const parts = rows.filter((r) => r.field.trim() !== "").map((r) => ({ [r.field.trim()]: { [r.op]: parseValue(r.op, r.value) } }));
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : { $and: parts };
}

export function FilterBuilder(props: { json: string; onChange: (json: string) => void }) {
  const [rows, setRows] = useState<Row[]>([{ field: "", op: "$eq", value: "" }]);
  const update = (next: Row[]) => {
    setRows(next);
    const filter = rowsToFilter(next);
    props.onChange(filter ? JSON.stringify(filter) : "");
  };
  const set = (i: number, patch: Partial<Row>) => update(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return html`<fieldset class="filter">
    <legend>${t("filter")}</legend>
    <p class="help">${t("filterHelp")}</p>
    ${rows.map(
      (row, i) => html`<div class="filter-row">
        <label>${t("field")} <input class="filter-field" value=${row.field} onInput=${(e: Event) => set(i, { field: (e.target as HTMLInputElement).value })} placeholder="lang" /></label>
        <label>${t("operator")}
          <select class="filter-op" value=${row.op} onChange=${(e: Event) => set(i, { op: (e.target as HTMLSelectElement).value as Row["op"] })}>
            ${OPERATORS.map((op) => html`<option value=${op}>${op}</option>`)}
          </select>
        </label>
        <label>${t("value")} <input class="filter-value" value=${row.value} onInput=${(e: Event) => set(i, { value: (e.target as HTMLInputElement).value })} placeholder="ja" /></label>
        <button type="button" onClick=${() => update(rows.filter((_, j) => j !== i))} disabled=${rows.length === 1}>${t("remove")}</button>
      </div>`,
    )}
    <button type="button" onClick=${() => update([...rows, { field: "", op: "$eq", value: "" }])}>${t("addCondition")}</button>
    <label class="block">${t("filterJson")}
      <textarea id="filter-json" rows="2" value=${props.json} onInput=${(e: Event) => props.onChange((e.target as HTMLTextAreaElement).value)} spellcheck="false"></textarea>
    </label>
  </fieldset>`;
}
