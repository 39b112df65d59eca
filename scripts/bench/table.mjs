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
  out.push(
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, Node ${m.node}. Date: ${report.date}. Run: ${report.seconds.toFixed(0)} s.`,
  );
  out.push("");
  out.push("Ingest (chunk + store + FTS + vectors; embedding excluded: precomputed vectors)");
  out.push("");
  out.push(
    table(
      ["chunks", "dims", "documents", "seconds", "chunks/s"],
      report.ingest.map((r) => [r.chunks, r.dims, r.documents, r.seconds.toFixed(1), r.chunksPerSecond.toFixed(0)]),
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
  out.push("Find latency, top 10, ms (query embedding excluded); raw KNN = sqlite-vec alone on the same table");
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
        ms(r.rawKnn.p50),
        ms(r.rawKnn.p95),
        ratio(r.vector.p50, r.rawKnn.p50),
        ratio(r.hybrid.p50, r.rawKnn.p50),
      ]),
    ),
  );
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
