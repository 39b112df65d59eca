// Agent memory: topics, QA records, knowledge, and the QA groups similar enough to merge.
import { useEffect, useState } from "preact/hooks";
import { api, dbPath } from "../api.js";
import { ErrorNote, shortDate, Warnings } from "../components.js";
import { html } from "../html.js";
import { t } from "../i18n.js";

interface MemoryAnswer {
  topics: {
    topic_id: string;
    name: string;
    description: string;
    qa_count: number;
    unmerged_count: number;
    knowledge_count: number;
    created_at: string;
  }[];
  qa: { qa_id: string; topic: string; question: string; answer: string; merged: boolean; created_at: string }[];
  knowledge: { knowledge_id: string; topic: string; text: string; source_qa_ids: string[]; created_at: string }[];
  merge: {
    groups: { topic: string; score: number; qa_ids?: string[]; qas?: { qa_id: string; question: string }[] }[];
    threshold: number;
    warnings: string[];
  };
  warnings: string[];
}

export function MemoryView(props: { db: string }) {
  const [memory, setMemory] = useState<MemoryAnswer | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api<MemoryAnswer>("GET", dbPath(props.db, "/memory")).then(setMemory).catch(setError);
  }, [props.db]);
  if (error) return html`<${ErrorNote} error=${error} />`;
  if (!memory) return html`<p>${t("loading")}</p>`;
  return html`<section aria-labelledby="memory-title" class="memory">
    <h2 id="memory-title">${t("memory")}</h2>
    <${Warnings} warnings=${[...memory.warnings, ...memory.merge.warnings]} />
    <table class="grid" id="topics">
      <caption>${t("topics")}</caption>
      <thead><tr><th scope="col">${t("name")}</th><th scope="col">${t("qaCount")}</th><th scope="col">${t("pending")}</th><th scope="col">${t("knowledgeCount")}</th><th scope="col">${t("created")}</th></tr></thead>
      <tbody>${memory.topics.map((x) => html`<tr><th scope="row">${x.name}</th><td class="num">${x.qa_count}</td><td class="num">${x.unmerged_count}</td><td class="num">${x.knowledge_count}</td><td>${shortDate(x.created_at)}</td></tr>`)}</tbody>
    </table>
    <h3>${t("qa")}</h3>
    ${memory.qa.length === 0 ? html`<p>${t("nothing")}</p>` : null}
    <ul class="qa">${memory.qa.map(
      (q) => html`<li><p class="topic">${q.topic}${q.merged ? html` · <span class="ok">${t("merged")}</span>` : null}</p>
        <p><strong>${t("question")}:</strong> ${q.question}</p><p><strong>${t("answer")}:</strong> ${q.answer}</p></li>`,
    )}</ul>
    <h3>${t("knowledge")}</h3>
    ${memory.knowledge.length === 0 ? html`<p>${t("nothing")}</p>` : null}
    <ul class="knowledge">${memory.knowledge.map((k) => html`<li><p class="topic">${k.topic}</p><p>${k.text}</p></li>`)}</ul>
    <h3>${t("mergeSuggestions")}</h3>
    ${memory.merge.groups.length === 0 ? html`<p>${t("nothing")}</p>` : null}
    <ul class="merge">${memory.merge.groups.map(
      (g) => html`<li><p class="topic">${g.topic} · ${g.score.toFixed(2)}</p>
        <ul>${(g.qas ?? []).map((q) => html`<li>${q.question}</li>`)}</ul></li>`,
    )}</ul>
  </section>`;
}
