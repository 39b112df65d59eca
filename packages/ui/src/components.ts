// Small pieces the views share: a confirmation dialog, a progress bar, error and status notes.
import { useEffect, useRef } from "preact/hooks";
import { html } from "./html.js";
import { t } from "./i18n.js";

/** A modal <dialog> asking before something that cannot be undone; focus starts on Cancel. */
export function Confirm(props: { message: string; onConfirm: () => void; onCancel: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    dialog?.querySelector<HTMLButtonElement>("button.cancel")?.focus();
  }, []);
  return html`<dialog ref=${ref} class="confirm" aria-labelledby="confirm-message" onCancel=${(e: Event) => {
    e.preventDefault();
    props.onCancel();
  }}>
    <p id="confirm-message">${props.message}</p>
    <div class="actions">
      <button type="button" class="cancel" onClick=${props.onCancel}>${t("cancel")}</button>
      <button type="button" class="danger confirm-delete" onClick=${props.onConfirm}>${t("delete")}</button>
    </div>
  </dialog>`;
}

/** A labelled progress bar (0–100) with a line of text under it. */
export function Progress(props: { id: string; value: number; label: string; detail?: string }) {
  const value = Math.max(0, Math.min(100, Math.round(props.value)));
  return html`<div class="progress">
    <label for=${props.id}>${props.label}</label>
    <progress id=${props.id} max="100" value=${value} aria-valuenow=${value}>${value}%</progress>
    <span class="percent" data-testid=${`${props.id}-percent`}>${value}%</span>
    ${props.detail ? html`<p class="detail">${props.detail}</p>` : null}
  </div>`;
}

export function ErrorNote(props: { error: unknown }) {
  if (!props.error) return null;
  const message = props.error instanceof Error ? props.error.message : String(props.error);
  return html`<p class="error" role="alert"><strong>${t("error")}:</strong> ${message}</p>`;
}

export function Warnings(props: { warnings?: string[] }) {
  if (!props.warnings?.length) return null;
  return html`<ul class="warnings">${props.warnings.map((w) => html`<li>${w}</li>`)}</ul>`;
}

export function shortDate(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}
