// HTML pages (main content, charsets, hostile nesting) and EPUB books (spine order, section
// locators, hostile zips and XML entities), from documents the fixtures generate.
import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { ExtractError, extract } from "../src/index.js";
import { BOILERPLATE_WORDS, encodeText, htmlPageSource, makeEpub, makeHtmlPage } from "./fixtures/web.js";

const page = {
  title: "富士山の気候",
  author: "山田太郎",
  published: "2024-05-01T09:00:00Z",
  sections: [
    {
      heading: "概要",
      paragraphs: [
        "富士山は静岡県と山梨県にまたがる活火山である。標高は3776メートルで、日本で最も高い山として知られている。",
        "夏には多くの登山者が山頂を目指し、御来光を拝む。",
      ],
    },
    {
      heading: "気温の変化",
      paragraphs: ["山頂の平均気温は八月でも六度前後にとどまり、冬には氷点下二十度を下回ることもある。"],
      table: [
        ["月", "平均気温"],
        ["一月", "-18.4"],
        ["八月", "6.4"],
      ],
    },
    { heading: "登山道", level: 3, list: ["吉田ルート", "富士宮ルート", "須走ルート"], paragraphs: ["各ルートには山小屋が点在している。"] },
  ],
};

const failsWith = async (promise: Promise<unknown>, code: string) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ExtractError);
  expect((error as ExtractError).code).toBe(code);
  return error as ExtractError;
};

describe("HTML", () => {
  it("keeps the main text in order, as Markdown, without navigation, sidebar, footer or banners", async () => {
    const result = await extract({ bytes: makeHtmlPage(page), name: "fuji.html" });
    const { text } = result;
    for (const word of BOILERPLATE_WORDS) expect(text).not.toContain(word);
    expect(text).not.toContain("tracking code");
    expect(text).not.toContain("font-family");
    const order = [
      "# 富士山の気候",
      "## 概要",
      "富士山は静岡県と山梨県",
      "夏には多くの登山者",
      "## 気温の変化",
      "| 月 | 平均気温 |",
      "| 一月 | -18.4 |",
      "### 登山道",
      "各ルートには山小屋",
      "- 吉田ルート",
    ];
    let at = -1;
    for (const piece of order) {
      const found = text.indexOf(piece);
      expect(found, piece).toBeGreaterThan(at);
      at = found;
    }
    expect(text).toMatch(/^\| --- \| --- \|$/m);
    expect(text).not.toMatch(/[\p{Script=Han}\p{Script=Hiragana}] [\p{Script=Han}\p{Script=Hiragana}]/u);
    expect(result.title).toBe("富士山の気候");
    expect(result.metadata).toMatchObject({ author: "山田太郎", published: "2024-05-01T09:00:00Z", lang: "ja" });
    expect(result.segments).toEqual([]);
  });

  it("decodes Shift_JIS and EUC-JP pages by <meta charset>, and by the Content-Type charset", async () => {
    for (const charset of ["shift_jis", "euc-jp"] as const) {
      const result = await extract({ bytes: makeHtmlPage({ ...page, charset }), name: "page.html" });
      expect(result.text).toContain("標高は3776メートル");
      expect(result.metadata.charset).toBe(charset);
    }
    const bare = makeHtmlPage({ ...page, charset: "shift_jis", omitMetaCharset: true });
    const viaHeader = await extract({ bytes: bare, mediaType: "text/html; charset=Shift_JIS" });
    expect(viaHeader.text).toContain("御来光を拝む");
    const guessed = await extract({ bytes: bare, name: "page.html" });
    expect(guessed.text).not.toContain("御来光を拝む");
  });

  it("joins Japanese text split across source lines and drops ruby readings", async () => {
    const html =
      "<html><body><p>東京は日本の\n  首都である。<ruby>漢字<rp>(</rp><rt>かんじ</rt><rp>)</rp></ruby>を読む。</p><p>Hello\nworld</p></body></html>";
    const { text } = await extract({ bytes: encodeText(html, "utf-8"), name: "a.htm" });
    expect(text).toContain("東京は日本の首都である。漢字を読む。");
    expect(text).toContain("Hello world");
  });

  it("uses the whole body minus navigation for a short page, and keeps link text without URLs", async () => {
    const html = `<html><head><title>短いページ</title></head><body><nav>メニュー項目</nav><p>短い本文です。<a href="https://example.com/long/path">詳しくはこちら</a></p><footer>フッター文言</footer></body></html>`;
    const result = await extract({ bytes: encodeText(html, "utf-8"), name: "short.html" });
    expect(result.text).toContain("短い本文です。詳しくはこちら");
    expect(result.text).not.toContain("example.com");
    expect(result.text).not.toContain("メニュー項目");
    expect(result.text).not.toContain("フッター文言");
    expect(result.title).toBe("短いページ");
  });

  it("reads 100,000 nested elements without overflowing the stack, with a warning", async () => {
    const n = 100_000;
    const html = `<html><body><p>before</p>${"<div>".repeat(n)}deep text${"</div>".repeat(n)}<p>after</p></body></html>`;
    const result = await extract({ bytes: encodeText(html, "utf-8"), name: "deep.html" });
    expect(result.text).toMatch(/before[\s\S]*deep text[\s\S]*after/);
    expect(result.warnings.join(" ")).toMatch(/nests elements more than 256 deep/);
  }, 120_000);

  it("keeps code blocks fenced and ordered lists numbered", async () => {
    const html = htmlPageSource({
      title: "コード例",
      sections: [{ heading: "例", code: "const a = 1;\nconst b = a * 2;", paragraphs: ["説明文。".repeat(80)] }],
    });
    const { text } = await extract({ bytes: encodeText(html, "utf-8"), name: "code.html" });
    expect(text).toContain("```\nconst a = 1;\nconst b = a * 2;\n```");
  });
});

const book = {
  title: "吾輩の本",
  author: "夏目漱石",
  chapters: [
    { title: "第一章 始まり", paragraphs: ["吾輩は猫である。名前はまだ無い。", "どこで生れたかとんと見当がつかぬ。"] },
    { title: "第二章 学校", paragraphs: ["学校では多くのことを学んだ。"] },
    { title: "第三章 終わり", paragraphs: ["物語はここで終わる。"] },
  ],
};

describe("EPUB", () => {
  it("reads chapters in spine order, one section-located segment each, with title, author and language", async () => {
    const bytes = makeEpub({ ...book, spineOrder: [1, 0, 2] });
    const result = await extract({ bytes, name: "book.epub" });
    expect(result.title).toBe("吾輩の本");
    expect(result.metadata).toMatchObject({ author: "夏目漱石", language: "ja", chapters: 3 });
    expect(result.segments.map((s) => s.locator.section)).toEqual(["第二章 学校", "第一章 始まり", "第三章 終わり"]);
    for (const segment of result.segments) {
      expect(result.text.slice(segment.start, segment.end)).toMatch(new RegExp(`^# ${segment.locator.section}`));
    }
    expect(result.text.slice(result.segments[1]?.start, result.segments[1]?.end)).toContain("吾輩は猫である。名前はまだ無い。");
    expect(result.text.indexOf("学校では")).toBeLessThan(result.text.indexOf("吾輩は猫"));
  });

  it("falls back to the file name when a chapter has no title anywhere", async () => {
    const bytes = makeEpub({ ...book, chapters: [{ title: "", paragraphs: ["本文だけの章。"], file: "text/plain-chapter.xhtml" }] });
    const result = await extract({ bytes, name: "book.epub" });
    expect(result.segments[0]?.locator.section).toBe("plain-chapter.xhtml");
  });

  it("refuses a corrupt zip, a zip bomb, DRM, and XML entity declarations with clear errors", async () => {
    const good = makeEpub(book);
    const cut = good.slice(0, Math.floor(good.length / 2));
    cut.fill(0x41, 200, 600);
    await failsWith(extract({ bytes: cut, name: "broken.epub" }), "corrupt");
    await failsWith(extract({ bytes: encodeText("not a zip at all", "utf-8"), name: "x.epub" }), "corrupt");
    const noContainer = zipSync({ mimetype: new TextEncoder().encode("application/epub+zip") });
    expect((await failsWith(extract({ bytes: noContainer, name: "x.epub" }), "corrupt")).message).toMatch(/container\.xml/);

    const bomb = makeEpub({ ...book, chapters: [{ title: "爆弾", paragraphs: ["あ".repeat(3_000_000)] }] });
    expect(bomb.length).toBeLessThan(100_000);
    const limit = await failsWith(extract({ bytes: bomb, name: "bomb.epub", limits: { maxInflatedBytes: 1_000_000 } }), "limit_exceeded");
    expect(limit.message).toMatch(/zip bomb/);

    const drm = makeEpub({
      ...book,
      extra: {
        "META-INF/encryption.xml": `<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/><enc:CipherData><enc:CipherReference URI="OEBPS/text/chapter1.xhtml"/></enc:CipherData></enc:EncryptedData></encryption>`,
      },
    });
    expect((await failsWith(extract({ bytes: drm, name: "drm.epub" }), "encrypted")).message).toMatch(/DRM/);

    const laughs = `<?xml version="1.0"?><!DOCTYPE package [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>
<package xmlns="http://www.idpf.org/2007/opf"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>&c;</dc:title></metadata><manifest><item id="c1" href="text/chapter1.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c1"/></spine></package>`;
    const entity = await failsWith(extract({ bytes: makeEpub({ ...book, opf: laughs }), name: "laughs.epub" }), "corrupt");
    expect(entity.message).toMatch(/ENTITY/);
  });
});
