import { describe, expect, it } from "vitest";
import { analyzeForIndex, buildKeywordQuery, terms, words } from "./index.js";

const texts = (text: string) => terms(text).map((t) => (t.added ? `+${t.text}` : t.text));
const matchTerms = (query: string) => (buildKeywordQuery(query)?.any ?? []).map((sequence) => sequence.join(" "));
const phrases = (query: string) => (buildKeywordQuery(query)?.phrases ?? []).map((sequence) => sequence.join(" "));

describe("terms for the index", () => {
  it("folds width and case with NFKC and lower case", () => {
    expect(words("ＡＢＣ１２３ Tokyo")).toEqual(["abc123", "tokyo"]);
    expect(words("ｻｰﾊﾞｰ")).toEqual(words("サーバー"));
  });

  it("keeps katakana words whole and drops a final long vowel mark from long ones", () => {
    // ICU alone cuts these at dictionary sub-words (マル|セル, サタ|ーン).
    expect(words("マルセル・プルースト")).toEqual(["マルセル", "プルースト"]);
    expect(words("サターンV")).toEqual(["サターン", "v"]);
    expect(words("コンピューター")).toEqual(words("コンピュータ"));
    expect(words("サーバー")).toEqual(["サーバ"]);
    expect(words("ツリー")).toEqual(["ツリー"]); // 3 characters: kept as written
  });

  it("reduces kanji words with okurigana to their kanji stem so inflections meet", () => {
    expect(words("始まり")).toEqual(["始"]);
    expect(words("美しい")).toEqual(["美"]);
    expect(words("東京")).toEqual(["東京"]);
  });

  it("indexes identifiers joined and split, across naming conventions", () => {
    expect(texts("getUserName")).toEqual(["getusername", "+get", "+user", "+name"]);
    expect(texts("get_user_name")).toEqual(["getusername", "+get", "+user", "+name"]);
    expect(texts("HTTPServer")).toEqual(["httpserver", "+http", "+server"]);
    expect(texts("__init__")).toEqual(["init"]);
  });

  it("splits member paths into their names, then adds the whole path", () => {
    expect(texts("this.store.writeDocuments(batch)")).toEqual([
      "this",
      "store",
      "writedocuments",
      "+write",
      "+documents",
      "+this.store.writedocuments",
      "batch",
    ]);
    expect(texts("PaymentService.retryCharge")).toEqual([
      "paymentservice",
      "+payment",
      "+service",
      "retrycharge",
      "+retry",
      "+charge",
      "+paymentservice.retrycharge",
    ]);
    expect(texts("std::vector ns:name")).toEqual(["std", "vector", "ns", "name", "+ns.name"]);
    // Numbers keep their dots, and a call's uses meet its definition's name.
    expect(texts("v1.2 3.14")).toEqual(["v1.2", "3.14"]);
    expect(words("await payments.retryCharge(id)")).toContain(words("retryCharge")[0]);
  });

  it("leaves a code chunk's reserved words out, keeping identifiers and members that contain them", () => {
    const ts =
      "export async function load(path: string) {\n  const text = await this.files.read(path);\n  return node.type ?? returnValue;\n}";
    // this.files.read: `this` is left out, the members stay (files.read is the path without it).
    expect(words(ts, "typescript")).toEqual([
      "load",
      "path",
      "text",
      "file",
      "read",
      "files.read",
      "path",
      "node",
      "type",
      "node.type",
      "returnvalu",
      "return",
      "valu",
    ]);
    expect(words("def settle(self, invoice):\n    return None if self.paid else invoice", "python")).toEqual([
      "settl",
      "invoic",
      "paid",
      "invoic",
    ]);
    // Go's `error` type is syntax; errors.New is a call.
    expect(words("if err != nil { return errors.New(msg) } var e error", "go")).toEqual(["err", "error", "new", "errors.new", "msg", "e"]);
    // Prose, and languages without a list, keep every word.
    expect(words("return the const value", null)).toEqual(words("return the const value"));
    expect(words("local x = nil", "lua")).toEqual(words("local x nil"));
  });

  it("adds the joined form of hyphenated Latin words but leaves number ranges alone", () => {
    expect(texts("IL-6 levels")).toEqual(["il", "6", "+il6", "levels"]);
    expect(texts("e-mail")).toEqual(["e", "mail", "+email"]);
    expect(texts("17-25°C")).toEqual(["17", "25", "c"]);
  });

  it("drops English possessives", () => {
    expect(words("Crohn's patient’s animals'")).toEqual(["crohn", "patient", "anim"]);
  });

  it("stems English words (Porter) and folds accents on Latin letters only", () => {
    expect(words("production produces Café naïve")).toEqual(["product", "produc", "cafe", "naiv"]);
    expect(words("ガギグ")).toEqual(["ガギグ"]);
    expect(words("がぎぐ").join("")).toBe("がぎぐ");
    expect(words("pge2 c3po")).toEqual(["pge2", "c3po"]);
  });

  it("handles a Japanese passage with English words and code at once", () => {
    expect(analyzeForIndex("設定はparseConfigFile()で読み、サーバーのe-mailに送る")).toBe(
      "設定 は parseconfigfil pars config file で 読 サーバ の e mail email に 送",
    );
  });
});

describe("buildKeywordQuery", () => {
  it("drops particles, question words and stop words, and keeps the counter of 何X", () => {
    expect(matchTerms("「奈良の大仏」の高さは何メートルなの?")).toEqual(["奈良", "大仏", "高", "メートル"]);
    expect(matchTerms("卵は何色ですか?")).toEqual(["卵", "色"]);
    expect(matchTerms("What is the role of the p53 gene?")).toEqual(["role", "p53", "gene"]);
    expect(matchTerms("the levels were rising")).toEqual(["level", "rise"]);
  });

  it("keeps hiragana words of three or more characters: they can be names", () => {
    expect(matchTerms("どんぐりころころの歌詞")).toEqual(["どんぐり", "ころころ", "歌詞"]);
    expect(matchTerms("こたつで食べるみかん")).toEqual(["こたつ", "食", "みかん"]);
    expect(matchTerms("ほくほく線について")).toEqual(["ほくほく", "線"]);
  });

  it("falls back to every word when all of them are function words", () => {
    expect(matchTerms("これは")).toEqual(["これ", "は"]);
    expect(matchTerms("the")).toEqual(["the"]);
  });

  it("searches a snake_case identifier joined or as a phrase of its parts, camelCase parts one by one", () => {
    expect(matchTerms("NODE_MODULES path")).toEqual(["nodemodul", "node modul", "path"]);
    expect(matchTerms("user_name field")).toEqual(["usernam", "user name", "field"]);
    expect(matchTerms("getUserName")).toEqual(["getusernam", "get", "user", "name"]);
    expect(matchTerms("mRNA levels")).toEqual(["mrna", "rna", "level"]);
  });

  it("builds phrases of consecutive query words, across one function word", () => {
    expect(phrases("奈良の大仏")).toEqual(["奈良 の 大仏"]);
    expect(phrases("Aspirin inhibits the production of PGE2")).toEqual(["aspirin inhibit", "inhibit the product", "product of pge2"]);
    expect(phrases("東京")).toEqual([]);
  });

  it("returns terms only: query syntax of any engine is just words", () => {
    expect(matchTerms('say "hi" OR NOT col:x')).toEqual(["sai", "hi", "col", "x", "col.x"]);
    expect(matchTerms('x"y')).toEqual(["x", "y"]);
    expect(buildKeywordQuery("   ")).toBeNull();
    expect(buildKeywordQuery("?!")).toBeNull();
  });
});
