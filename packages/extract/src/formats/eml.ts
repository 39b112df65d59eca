// Email (.eml, RFC 822/MIME) through postal-mime: subject as title, from/to/date as metadata,
// the text/plain body (or the HTML body through the HTML path); attachments named, not read.
import PostalMime, { type Email } from "postal-mime";
import { ExtractError, type Extractor } from "../types.js";
import { htmlDocumentToMarkdown } from "./html.js";

type Address = NonNullable<Email["from"]>;

export const extractor: Extractor = {
  formats: ["eml"],
  async extract(bytes, input) {
    let email: Email;
    try {
      email = await PostalMime.parse(bytes, { attachmentEncoding: "arraybuffer", maxNestingDepth: 64 });
    } catch (error) {
      throw new ExtractError("corrupt", `the email cannot be read: ${(error as Error).message}`.slice(0, 300));
    }
    if (email.headers.length === 0) throw new ExtractError("corrupt", "the file has no email headers; it is not an RFC 822 message");
    const warnings: string[] = [];
    let body = email.text?.trim() ? email.text.replace(/\r\n?/g, "\n").trim() : "";
    if (!body && email.html) {
      const html = htmlDocumentToMarkdown(email.html, { mainContent: false });
      body = html.markdown;
      warnings.push(...html.warnings);
    }
    const metadata: Record<string, string | number> = {};
    const from = formatAddresses(email.from ? [email.from] : []);
    const to = formatAddresses(email.to ?? []);
    const cc = formatAddresses(email.cc ?? []);
    if (from) metadata.from = from;
    if (to) metadata.to = to;
    if (cc) metadata.cc = cc;
    const date = email.date ? new Date(email.date) : undefined;
    if (date && !Number.isNaN(date.getTime())) metadata.date = date.toISOString();
    else if (email.date) metadata.date = email.date;
    if (email.messageId) metadata.messageId = email.messageId;
    const attached = email.attachments.filter((attachment) => !attachment.related);
    if (attached.length > 0) {
      metadata.attachments = attached.length;
      const names = attached.map((attachment) => attachment.filename ?? `(unnamed ${attachment.mimeType})`);
      warnings.push(`${attached.length} attachment${attached.length === 1 ? "" : "s"} not extracted: ${names.join(", ").slice(0, 500)}`);
    }
    const subject = email.subject?.trim() || undefined;
    const header = [from && `From: ${from}`, to && `To: ${to}`, cc && `Cc: ${cc}`, metadata.date && `Date: ${metadata.date}`].filter(
      Boolean,
    );
    const text = [subject ? `# ${subject}` : "", header.join("\n"), body].filter(Boolean).join("\n\n");
    if (text.length > input.limits.maxTextChars) {
      throw new ExtractError(
        "limit_exceeded",
        `the extracted text is ${text.length} characters, over the limit of ${input.limits.maxTextChars}`,
      );
    }
    if (!body) warnings.push("the email has no text body");
    return { format: "eml", text, title: subject, metadata, segments: [], warnings };
  },
};

/** "Name <address>, …", groups flattened. */
function formatAddresses(addresses: Address[]): string {
  const out: string[] = [];
  for (const address of addresses) {
    const members = address.group ?? [address];
    for (const member of members) {
      if (!member.address) continue;
      out.push(member.name ? `${member.name} <${member.address}>` : member.address);
    }
  }
  return out.join(", ");
}
