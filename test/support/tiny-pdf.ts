// A small, valid PDF written by hand for tests: pages of ASCII lines in Helvetica, an Info
// dictionary (title, author, creation date); and a page with no text at all (a "scan").

function pdfString(text: string): string {
  return text.replace(/[\\()]/g, (c) => `\\${c}`);
}

/** A PDF whose pages hold `pages[i]` (lines of ASCII text); a page given as null holds only a filled rectangle (no text layer). */
export function tinyPdf(pages: (string[] | null)[], info: { title?: string; author?: string; created?: string } = {}): Buffer {
  const objects: string[] = [];
  const add = (body: string) => {
    objects.push(body);
    return objects.length;
  };
  const catalog = add(""); // filled in below
  const pagesId = add("");
  const font = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
  const kids: number[] = [];
  for (const lines of pages) {
    const stream =
      lines === null
        ? "0.5 g 72 72 400 600 re f"
        : `BT /F1 12 Tf 14 TL 72 740 Td ${lines.map((line, i) => `${i === 0 ? "" : "T* "}(${pdfString(line)}) Tj`).join(" ")} ET`;
    const content = add(`<< /Length ${Buffer.byteLength(stream, "latin1")} >>\nstream\n${stream}\nendstream`);
    kids.push(
      add(
        `<< /Type /Page /Parent ${pagesId} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${content} 0 R >>`,
      ),
    );
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesId} 0 R >>`;
  objects[pagesId - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(" ")}] /Count ${kids.length} >>`;
  const infoFields = [
    info.title ? `/Title (${pdfString(info.title)})` : "",
    info.author ? `/Author (${pdfString(info.author)})` : "",
    info.created ? `/CreationDate (${info.created})` : "",
  ].join(" ");
  const infoId = add(`<< ${infoFields} /Producer (docdb tests) >>`);
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, "latin1"));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, "latin1");
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R /Info ${infoId} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}
