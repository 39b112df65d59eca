// Synthetic, seeded benchmark data: documents that read like docdb's real input (Japanese,
// English and code in one corpus), keyword queries drawn from the same vocabulary, and
// clustered unit vectors (real embeddings cluster by topic; uniform random vectors would make
// every neighbour equally far and flatter the KNN).

import { seeded } from "../seeded-random.mjs";

export { seeded };

function gaussian(random) {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

function normalizeInPlace(v, offset, dims) {
  let norm = 0;
  for (let i = offset; i < offset + dims; i++) norm += v[i] * v[i];
  norm = Math.sqrt(norm) || 1;
  for (let i = offset; i < offset + dims; i++) v[i] /= norm;
}

/**
 * `count` unit vectors of `dims` dimensions around `clusters` random centres (noise 0.5 of a
 * centre's scale per axis), in one Float32Array; `at(i)` is a view of vector i. The centres
 * depend only on `dims`, so passages and queries drawn with different seeds share topics.
 */
export function clusteredVectors(count, dims, { clusters = 64, seed = 7 } = {}) {
  const centreRandom = seeded(dims);
  const centres = new Float32Array(clusters * dims);
  for (let i = 0; i < centres.length; i++) centres[i] = gaussian(centreRandom);
  const random = seeded(seed);
  const data = new Float32Array(count * dims);
  for (let n = 0; n < count; n++) {
    const c = Math.floor(random() * clusters) * dims;
    const o = n * dims;
    for (let i = 0; i < dims; i++) data[o + i] = centres[c + i] + 0.5 * gaussian(random);
    normalizeInPlace(data, o, dims);
  }
  return { count, dims, data, at: (i) => data.subarray(i * dims, (i + 1) * dims) };
}

// Vocabularies big enough to behave like real text: words are drawn with Zipf's law (a few
// very common, most rare), so keyword queries hit a realistic share of passages. English-like
// words are built from syllables, Japanese ones from katakana and kanji words; particles,
// verbs and code identifiers are real.
const SYLLABLES =
  "ba be bi bo ca co da de di do fa fe ga ge gi go ka ke ki la le li lo ma me mi mo na ne ni no pa pe pi po ra re ri ro sa se si so ta te ti to va ve vi za".split(
    " ",
  );
const KANA =
  "ア イ ウ エ オ カ キ ク ケ コ サ シ ス セ ソ タ チ ツ テ ト ナ ニ ヌ ネ ノ ハ ヒ フ ヘ ホ マ ミ ム メ モ ラ リ ル レ ロ ン".split(" ");
const KANJI_WORDS = (
  "認証 設定 検索 結果 請求 顧客 注文 在庫 配送 倉庫 障害 監視 警告 復元 文書 段落 翻訳 会議 予算 契約 更新 削除 " +
  "権限 暗号 接続 容量 性能 市場 企業 技術 製品 開発 品質 管理 計画 報告 分析 調査 教育 研究 環境 資源 地域 社会"
).split(" ");
const PARTICLES = "の は を に が で と も から まで".split(" ");
const JA_VERBS = "確認します 保存されます 送信します 失敗しました 更新されます 削除できます 表示されます 記録します".split(" ");
const EN_FUNCTION = "the of and to in is for on with by that this as at from".split(" ");
const IDENTIFIERS = (
  "getUserName refreshAccessToken parseConfigFile retry_count max_connections InvoiceService OrderRepository " +
  "validateInput build_index fetchCustomerOrders STOCK_LEVEL_LIMIT renderHeading"
).split(" ");

function vocabulary(size, make, seed) {
  const random = seeded(seed);
  const words = new Set();
  while (words.size < size) words.add(make(random));
  return [...words];
}

const pick = (random, list) => list[Math.floor(random() * list.length)];

const EN_WORDS = vocabulary(20_000, (r) => Array.from({ length: 2 + Math.floor(r() * 3) }, () => pick(r, SYLLABLES)).join(""), 3);
// Japanese words: katakana words and pairs of dictionary kanji words (ICU keeps katakana whole
// and cuts the pairs at the dictionary words, as with real text; random kanji pairs would fall
// apart into single characters that match every passage).
const JA_WORDS = vocabulary(
  10_000,
  (r) =>
    r() < 0.2 ? pick(r, KANJI_WORDS) + pick(r, KANJI_WORDS) : Array.from({ length: 3 + Math.floor(r() * 3) }, () => pick(r, KANA)).join(""),
  5,
);

/** Samples ranks 0..n-1 with probability proportional to 1/(rank+1) (Zipf, exponent 1). */
function zipf(n) {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) cdf[i] = sum += 1 / (i + 1);
  return (random) => {
    const target = random() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}
const enRank = zipf(EN_WORDS.length);
const jaRank = zipf(JA_WORDS.length);
/** A word of rank `from` or rarer. */
function word(list, rank, random, from) {
  let r = rank(random);
  while (r < from) r = rank(random);
  return list[r];
}
const en = (random, from = 0) => word(EN_WORDS, enRank, random, from);
const ja = (random, from = 0) => word(JA_WORDS, jaRank, random, from);

function sentence(random) {
  const kind = random();
  if (kind < 0.45) {
    return `${ja(random)}${pick(random, PARTICLES)}${ja(random)}${pick(random, PARTICLES)}${ja(random)}を${pick(random, JA_VERBS)}。`;
  }
  if (kind < 0.85) {
    const words = Array.from({ length: 8 + Math.floor(random() * 8) }, () => (random() < 0.35 ? pick(random, EN_FUNCTION) : en(random)));
    return `The ${words.join(" ")}.`;
  }
  return `\`${pick(random, IDENTIFIERS)}(${en(random)})\` は ${ja(random)} を返す。`;
}

/** Documents of about `length` characters (several chunks each), deterministic for a seed. */
export function* documents({ seed = 11, length = 1800 } = {}) {
  const random = seeded(seed);
  for (let n = 0; ; n++) {
    let text = "";
    while (text.length < length) text += `${sentence(random)} `;
    yield { title: `${ja(random)} ${en(random)}`, text: text.trim(), metadata: { n } };
  }
}

/**
 * Keyword queries: two or three words, Japanese, English or an identifier with a word, skipping
 * the 20 commonest words (people search for what is specific). Each text is unique (it keys the
 * precomputed query vector) through a final token that matches nothing.
 */
export function queries(count, { seed = 13 } = {}) {
  const random = seeded(seed);
  return Array.from({ length: count }, (_, i) => {
    const kind = random();
    if (kind < 0.4) return `${ja(random, 20)}の${ja(random, 20)} q${i}`;
    if (kind < 0.8) return `${en(random, 20)} ${en(random, 20)} ${en(random, 20)} q${i}`;
    return `${pick(random, IDENTIFIERS)} ${en(random, 20)} q${i}`;
  });
}
