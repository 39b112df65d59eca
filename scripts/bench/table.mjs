// The benchmark report as Markdown tables (what BENCHMARKS.md quotes).

const ms = (x) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
const ratio = (a, b) => `${(a / b).toFixed(2)}×`;

function table(header, rows) {
  const line = (cells) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

export function renderTable(report) {
  const out = [];
  const m = report.machine;
  const load = m.loadAverage
    ? ` Load average (1/5/15 min): ${m.loadAverage.start.map((x) => x.toFixed(1)).join("/")} at the start, ${m.loadAverage.end?.map((x) => x.toFixed(1)).join("/") ?? "?"} at the end.`
    : "";
  out.push(
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, Node ${m.node}. Date: ${report.date}. Run: ${report.seconds.toFixed(0)} s.${load}`,
  );
  const store = report.store ?? { kind: "sqlite", location: "temporary SQLite files" };
  out.push("");
  if (store.kind === "postgres") {
    out.push(`Store: PostgreSQL at ${store.location}. Server: ${store.server.label}.`);
    out.push(`Databases of this run dropped afterwards: ${store.dropped ?? "?"}. Re-embed: ${store.reembed}.`);
  } else {
    out.push(`Store: SQLite (${store.location}).`);
  }
  for (const line of report.skipped ?? []) out.push(`Skipped: ${line}.`);
  out.push("");
  if (report.ingestPaths?.length > 0) {
    out.push(
      "Ingest paths on the same documents, rounds alternating the paths (chunk + analyse + store + FTS + vectors; precomputed vectors)",
    );
    out.push("");
    out.push(
      table(
        ["path", "vectors", "documents", "chunks", "seconds", "chunks/s", "CPU s", "chunks/CPU-s"],
        report.ingestPaths.map((r) => [
          r.path,
          r.vectors,
          r.documents,
          r.chunks,
          r.seconds.toFixed(1),
          r.chunksPerSecond.toFixed(0),
          r.cpuSeconds.toFixed(1),
          r.chunksPerCpuSecond.toFixed(0),
        ]),
      ),
    );
    out.push("");
  }
  out.push("Ingest of the benchmark databases (insertDocuments; chunk + store + FTS + vectors; embedding excluded: precomputed vectors)");
  out.push("");
  out.push(
    table(
      ["chunks", "dims", "documents", "seconds", "chunks/s", "chunks/CPU-s"],
      report.ingest.map((r) => [
        r.chunks,
        r.dims,
        r.documents,
        r.seconds.toFixed(1),
        r.chunksPerSecond.toFixed(0),
        r.chunksPerCpuSecond ? r.chunksPerCpuSecond.toFixed(0) : "",
      ]),
    ),
  );
  if (report.reembed.length > 0) {
    out.push("");
    out.push("Re-embed (docdb reembed path: drop the vector table, write every chunk's vector again; precomputed vectors)");
    out.push("");
    out.push(
      table(
        ["chunks", "dims", "seconds", "chunks/s"],
        report.reembed.map((r) => [r.chunks, r.dims, r.seconds.toFixed(1), r.chunksPerSecond.toFixed(0)]),
      ),
    );
  }
  out.push("");
  out.push(`Find latency, top 10, ms (query embedding excluded); raw KNN = ${store.rawKnn ?? "sqlite-vec alone on the same table"}`);
  out.push("");
  out.push(
    table(
      [
        "chunks",
        "dims",
        "keyword p50",
        "keyword p95",
        "vector p50",
        "vector p95",
        "hybrid p50",
        "hybrid p95",
        "vector, broad filter p50",
        "vector, broad filter p95",
        "raw KNN p50",
        "raw KNN p95",
        "vector / raw",
        "hybrid / raw",
      ],
      report.find.map((r) => [
        r.size,
        r.dims,
        ms(r.keyword.p50),
        ms(r.keyword.p95),
        ms(r.vector.p50),
        ms(r.vector.p95),
        ms(r.hybrid.p50),
        ms(r.hybrid.p95),
        r.vectorFiltered ? ms(r.vectorFiltered.p50) : "",
        r.vectorFiltered ? ms(r.vectorFiltered.p95) : "",
        ms(r.rawKnn.p50),
        ms(r.rawKnn.p95),
        ratio(r.vector.p50, r.rawKnn.p50),
        ratio(r.hybrid.p50, r.rawKnn.p50),
      ]),
    ),
  );
  for (const a of report.ann ?? []) {
    if (a.engine === "postgres") {
      out.push("", ...postgresAnn(a));
      continue;
    }
    const b = a.build;
    const p = a.paths;
    out.push("");
    out.push(
      `Vector search, ${a.vectors} × ${a.dims}, top 10, ms; recall@10 against the exact answer (the floor). ` +
        `Index (usearch HNSW, M ${b.settings.connectivity}, ef_construction ${b.settings.expansionAdd}, ${b.settings.quantization}): ` +
        `built in ${b.seconds?.toFixed(1)} s (${b.cpuSeconds?.toFixed(0)} CPU-s), file ${(b.bytes / 2 ** 20).toFixed(1)} MB, RSS ${b.rssMb.toFixed(0)} MB after the build; ` +
        `RSS ${a.rssMb.toFixed(0)} MB after the queries (index + exact-path copy + the bench's own copy of the vectors).`,
    );
    const s = a.serving?.phases;
    if (s) {
      const at = (x) => `${x.rssMb} MB (${x.anonMb} anonymous + ${x.fileMb} mapped file)`;
      out.push(
        `Serving memory, a fresh process: RSS ${at(s.opened)} open, ${at(s.queries)} after ${a.serving.vector ? "the" : ""} vector queries ` +
          `(p50 ${ms(a.serving.vector.p50)}, p95 ${ms(a.serving.vector.p95)} ms; first ${ms(a.serving.firstQueryMs)} ms), ` +
          `${at(s.exact)} after exact: true (first ${ms(a.serving.exactFirstMs)} ms, then p50 ${ms(a.serving.exact.p50)}); peak ${s.exact.peakMb} MB.`,
      );
    }
    out.push("");
    const row = (label, setting, x, floor) => [
      label,
      setting,
      ms(x.p50),
      ms(x.p95),
      x.recall === undefined ? "1 (is the truth)" : x.recall.toFixed(3),
      floor ? ratio(x.p50, floor) : "",
    ];
    const floorP50 = p.floor.p50;
    if (a.state === "exact") out.push(`(below the index threshold ${b.settings.threshold}: the "HNSW" rows are sqlite-vec scans)\n`);
    out.push(
      table(
        ["path", "setting", "p50", "p95", "recall@10", "p50 / floor"],
        [
          row("docdb findSimilar vector (HNSW)", `ef ${b.settings.expansionSearch} (default)`, p.ann, floorP50),
          row("docdb findSimilar vector, exact: true", "in-memory SIMD scan", p.exact, floorP50),
          row("in-memory SIMD floor (usearch exactSearch alone)", "f32, one thread", p.floor, floorP50),
          row("sqlite-vec scan alone (the previous vector path)", "", p.sqliteVec, floorP50),
          ...a.sweep.map((s) => row("docdb findSimilar vector (HNSW)", `ef ${s.ef}`, s, s.floorP50)),
        ],
      ),
    );
  }
  const tr = report.textRecall;
  if (tr) {
    out.push("");
    if (tr.skipped) out.push(`Text-derived vectors: skipped (${tr.skipped})`);
    else {
      out.push(
        `Text-derived vectors: ${tr.vectors} sentences of the eval corpora (JaQuAD, SciFact) as random projections of TF-IDF over analysed terms; ` +
          `${tr.queries} questions of the corpora as queries; usearch HNSW (docdb's library), recall@10 against usearch exactSearch, search alone (no SQLite), ms`,
      );
      out.push("");
      out.push(
        table(
          ["M", "ef_construction", "quantization", "build s", "file MB", "ef", "p50", "p95", "recall@10"],
          tr.builds.flatMap((b) =>
            b.sweep.map((s) => [
              b.settings.connectivity,
              b.settings.expansionAdd,
              b.settings.quantization,
              b.seconds.toFixed(1),
              (b.bytes / 2 ** 20).toFixed(1),
              s.ef,
              ms(s.p50),
              ms(s.p95),
              s.recall.toFixed(3),
            ]),
          ),
        ),
      );
    }
  }
  out.push("");
  out.push("MCP server (stdio)");
  out.push("");
  const mcp = report.mcp;
  if (!mcp || mcp.skipped) out.push(`skipped: ${mcp?.skipped ?? "not run"}`);
  else {
    const memory = mcp.memory ? `${mcp.memory.rss.toFixed(0)} MB (peak ${mcp.memory.peak.toFixed(0)} MB)` : "not measured (no /proc)";
    out.push(
      table(
        ["measure", "value"],
        [
          ["start → first tools/list answer, p50 (max) of 5", `${ms(mcp.startupMs.p50)} ms (${ms(mcp.startupMs.max)} ms)`],
          [`RSS after ${mcp.searches} keyword searches on ${mcp.database}`, memory],
        ],
      ),
    );
  }
  return `${out.join("\n")}\n`;
}

/** PostgreSQL's vector section: pgvector HNSW through docdb and alone, against the exact answer. */
function postgresAnn(a) {
  const out = [];
  const i = a.index;
  const mb = (bytes) => (bytes / 2 ** 20).toFixed(1);
  out.push(
    `Vector search on PostgreSQL, ${a.vectors} × ${a.dims}, top 10, ms; recall@10 against docdb's exact answer (\`exact: true\`). ` +
      (i
        ? `Index (pgvector HNSW, m ${i.settings.m}, ef_construction ${i.settings.efConstruction}, cosine), filled row by row during ingest: ` +
          `${mb(i.bytes)} MB (vectors table ${mb(i.tableBytes)} MB); REINDEX from scratch took ${i.rebuildSeconds.toFixed(1)} s (${mb(i.bytesAfterRebuild)} MB after).`
        : "No HNSW index (pgvector indexes up to 2,000 dimensions): every path is an exact scan."),
  );
  out.push("");
  const p = a.paths;
  const exactP50 = p.exact.p50;
  const row = (label, setting, x) => [label, setting, ms(x.p50), ms(x.p95), x.recall.toFixed(3), ratio(x.p50, exactP50)];
  out.push(
    table(
      ["path", "setting", "p50", "p95", "recall@10", "p50 / docdb exact"],
      [
        row("docdb findSimilar vector (HNSW)", `ef_search ${i?.settings.efSearch ?? "—"} (docdb's)`, p.ann),
        row("docdb findSimilar vector, exact: true", "sequential scan in the server", p.exact),
        row("pgvector alone: ORDER BY <=> LIMIT 10 (HNSW)", `ef_search ${i?.settings.efSearch ?? "—"}`, p.pgvectorHnsw),
        row("pgvector alone: exact scan", "", p.pgvectorExact),
        ...(a.sweep ?? []).map((s) => row("pgvector alone: ORDER BY <=> LIMIT 10 (HNSW)", `ef_search ${s.ef}`, s)),
      ],
    ),
  );
  return out;
}
