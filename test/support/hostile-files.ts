// Files made to hurt an importer, for tests: a zip bomb and a zip of too many entries dressed as
// DOCX, a DOCX whose XML expands entities a billion times, a corrupt zip, a file far too large
// (sparse, so it costs no disk), and a minimal valid DOCX to compare with.
import { closeSync, ftruncateSync, openSync } from "node:fs";
import { strToU8, Zip, ZipDeflate, ZipPassThrough, zipSync } from "fflate";

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
  '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const RELS =
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';
const W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";

/** A DOCX of paragraphs. */
export function simpleDocx(paragraphs: string[], prolog = ""): Buffer {
  const body = paragraphs.map((p) => `<w:p><w:r><w:t xml:space="preserve">${p}</w:t></w:r></w:p>`).join("");
  return Buffer.from(
    zipSync({
      "[Content_Types].xml": strToU8(CONTENT_TYPES),
      "_rels/.rels": strToU8(RELS),
      "word/document.xml": strToU8(
        `<?xml version="1.0" encoding="UTF-8"?>${prolog}<w:document xmlns:w="${W}"><w:body>${body}</w:body></w:document>`,
      ),
    }),
  );
}

/** A DOCX whose document.xml declares entities that expand to about 10^9 "lol"s. */
export function entityBombDocx(): Buffer {
  let dtd = '<!ENTITY lol0 "lol">';
  for (let i = 1; i <= 9; i++) dtd += `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`;
  return simpleDocx(["&lol9;"], `<!DOCTYPE w:document [${dtd}]>`);
}

/** A DOCX whose document.xml inflates to `megabytes` MB of spaces (streamed: never held whole). */
export function zipBombDocx(megabytes = 600): Buffer {
  const parts: Uint8Array[] = [];
  let failed: Error | undefined;
  const zip = new Zip((error, chunk) => {
    if (error) failed = error;
    else parts.push(chunk);
  });
  for (const [name, text] of [
    ["[Content_Types].xml", CONTENT_TYPES],
    ["_rels/.rels", RELS],
  ] as const) {
    const entry = new ZipPassThrough(name);
    zip.add(entry);
    entry.push(strToU8(text), true);
  }
  const document = new ZipDeflate("word/document.xml", { level: 9 });
  zip.add(document);
  document.push(strToU8(`<?xml version="1.0"?><w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t>`));
  const spaces = new Uint8Array(1024 * 1024).fill(0x20);
  for (let i = 0; i < megabytes; i++) document.push(spaces);
  document.push(strToU8("</w:t></w:r></w:p></w:body></w:document>"), true);
  zip.end();
  if (failed) throw failed;
  return Buffer.concat(parts);
}

/** A DOCX-named zip of `entries` tiny entries. */
export function manyEntriesDocx(entries = 20_000): Buffer {
  const files: Record<string, Uint8Array> = { "[Content_Types].xml": strToU8(CONTENT_TYPES), "_rels/.rels": strToU8(RELS) };
  for (let i = 0; i < entries; i++) files[`word/media/e${i}.xml`] = strToU8("<x/>");
  files["word/document.xml"] = strToU8(`<w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t>many</w:t></w:r></w:p></w:body></w:document>`);
  return Buffer.from(zipSync(files, { level: 0 }));
}

/** A file of `bytes` bytes that takes no disk space (sparse). */
export function sparseFile(path: string, bytes: number): void {
  const fd = openSync(path, "w");
  try {
    ftruncateSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
}
