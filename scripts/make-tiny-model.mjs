#!/usr/bin/env node
// Writes a tiny BERT-shaped embedding model that the local provider loads like a real one:
//   <out>/config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx
// The graph takes input_ids, attention_mask and token_type_ids and returns last_hidden_state,
// through token + position + type embeddings and a few self-attention layers that honour the
// attention mask (so padding in a batch must not change a text's vector). Weights are random
// from a seeded generator: the same options always give the same bytes. Tests and the
// benchmark use it offline, with no Python and no download.
//
//   node scripts/make-tiny-model.mjs [OUT_DIR] [--hidden 32] [--layers 2] [--intermediate 64] [--seed 7] [--rerank] [--force]
//
// With --hidden 384 --layers 12 --intermediate 1536 it has multilingual-e5-small's compute
// shape (not its quality): the benchmark uses that to estimate real-model throughput offline.
//
// With --rerank it is a cross-encoder instead (BertForSequenceClassification-shaped): the same
// encoder, then BERT's pooler (the [CLS] vector through a dense layer and tanh) and a classifier
// giving one logit per (query, passage) pair, output `logits` [batch, 1]. Its scores mean
// nothing, but they are deterministic: the reranker tests check that docdb orders by them.

import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";
import { seeded as random } from "./seeded-random.mjs";

const here = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_TINY_MODEL_DIR = resolve(here, "..", "test-models", "tiny-bert");
/** Bump when the output changes, so stale generated folders are rebuilt. */
const GENERATOR_VERSION = 1;
const MARKER_FILE = "tiny-model.json";

const FLOAT = 1;
const INT64 = 7;
const ATTRIBUTE = { FLOAT: 1, INT: 2, INTS: 7 };

/**
 * The vocabulary: specials, ASCII characters, kana (with `##` continuations), common kanji, a
 * few words, and `extraWords` (whole-word tokens, so a text of those words tokenizes about as
 * densely as with a real subword vocabulary).
 */
function vocabulary(extraWords = []) {
  const specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];
  const chars = [];
  for (let c = 0x21; c < 0x7f; c++) {
    const ch = String.fromCharCode(c);
    if (ch >= "A" && ch <= "Z") continue; // the normalizer lowercases
    chars.push(ch);
  }
  for (let c = 0x3041; c <= 0x3096; c++) chars.push(String.fromCharCode(c)); // hiragana
  for (let c = 0x30a1; c <= 0x30fa; c++) chars.push(String.fromCharCode(c)); // katakana
  chars.push("ー", "。", "、", "「", "」");
  const kanji = [..."日本東京大阪京都人口首都年月時間語文書検索意味情報会社学校先生今何私彼女男子山川海空雨雪花木金土火水"];
  const words = ["the", "of", "and", "to", "in", "is", "for", "that", "with", "query", "passage", "document", "search"];
  const vocab = [...specials, ...words, ...chars, ...chars.map((c) => `##${c}`), ...kanji, ...extraWords.map((w) => w.toLowerCase())];
  return Object.fromEntries([...new Set(vocab)].map((token, id) => [token, id]));
}

function tokenizerFiles(vocab) {
  const special = (content) => ({
    id: vocab[content],
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const tokenizer = {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"].map(special),
    normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [
        { SpecialToken: { id: "[CLS]", type_id: 0 } },
        { Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: "[SEP]", type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: "[CLS]", type_id: 0 } },
        { Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: "[SEP]", type_id: 0 } },
        { Sequence: { id: "B", type_id: 1 } },
        { SpecialToken: { id: "[SEP]", type_id: 1 } },
      ],
      special_tokens: {
        "[CLS]": { id: "[CLS]", ids: [vocab["[CLS]"]], tokens: ["[CLS]"] },
        "[SEP]": { id: "[SEP]", ids: [vocab["[SEP]"]], tokens: ["[SEP]"] },
      },
    },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##", max_input_chars_per_word: 100, vocab },
  };
  const tokenizerConfig = {
    tokenizer_class: "BertTokenizer",
    model_max_length: 512,
    do_lower_case: true,
    clean_up_tokenization_spaces: true,
    cls_token: "[CLS]",
    sep_token: "[SEP]",
    pad_token: "[PAD]",
    unk_token: "[UNK]",
    mask_token: "[MASK]",
  };
  return { tokenizer, tokenizerConfig };
}

/** Builds the ONNX graph as plain objects shaped like onnx-subset.proto's messages. */
function buildGraph({ vocabSize, hidden, layers, intermediate, maxPositions, seed, head }) {
  const next = random(seed);
  const initializer = [];
  const node = [];
  let counter = 0;
  const uniform = (n, scale) => Float32Array.from({ length: n }, () => (next() * 2 - 1) * scale);
  const floatTensor = (name, dims, values) => {
    initializer.push({ name, dims, data_type: FLOAT, raw_data: Buffer.from(values.buffer, values.byteOffset, values.byteLength) });
    return name;
  };
  const int64Tensor = (name, dims, values) => {
    const data = BigInt64Array.from(values.map(BigInt));
    initializer.push({ name, dims, data_type: INT64, raw_data: Buffer.from(data.buffer) });
    return name;
  };
  const op = (op_type, input, attribute = []) => {
    const output = `${op_type.toLowerCase()}_${counter++}`;
    node.push({ op_type, name: output, input, output: [output], attribute });
    return output;
  };
  const intAttr = (name, i) => ({ name, i, type: ATTRIBUTE.INT });
  const floatAttr = (name, f) => ({ name, f, type: ATTRIBUTE.FLOAT });
  const intsAttr = (name, ints) => ({ name, ints, type: ATTRIBUTE.INTS });
  const ones = (n) => new Float32Array(n).fill(1);
  const zeros = (n) => new Float32Array(n);
  const layerNorm = (x, prefix) =>
    op(
      "LayerNormalization",
      [x, floatTensor(`${prefix}.gamma`, [hidden], ones(hidden)), floatTensor(`${prefix}.beta`, [hidden], zeros(hidden))],
      [intAttr("axis", -1), floatAttr("epsilon", 1e-12)],
    );
  const dense = (x, prefix, inSize, outSize) => {
    const weight = floatTensor(`${prefix}.weight`, [inSize, outSize], uniform(inSize * outSize, Math.sqrt(3 / inSize)));
    const bias = floatTensor(`${prefix}.bias`, [outSize], uniform(outSize, 0.02));
    return op("Add", [op("MatMul", [x, weight]), bias]);
  };

  // Embeddings: token + position + token type, then LayerNorm (BERT's order).
  const word = op("Gather", [floatTensor("embeddings.word", [vocabSize, hidden], uniform(vocabSize * hidden, 1)), "input_ids"]);
  int64Tensor("const.zero", [], [0]);
  int64Tensor("const.one", [], [1]);
  const sequenceLength = op("Gather", [op("Shape", ["input_ids"]), "const.one"], [intAttr("axis", 0)]);
  const positions = op("Range", ["const.zero", sequenceLength, "const.one"]);
  const position = op("Gather", [
    floatTensor("embeddings.position", [maxPositions, hidden], uniform(maxPositions * hidden, 0.2)),
    positions,
  ]);
  const type = op("Gather", [floatTensor("embeddings.type", [2, hidden], uniform(2 * hidden, 0.2)), "token_type_ids"]);
  let state = layerNorm(op("Add", [op("Add", [word, position]), type]), "embeddings.norm");

  // Padding positions get a large negative score before the softmax, as in BERT.
  floatTensor("const.one_f", [], Float32Array.of(1));
  floatTensor("const.mask_value", [], Float32Array.of(-10000));
  int64Tensor("const.axis1", [1], [1]);
  const mask = op("Cast", ["attention_mask"], [intAttr("to", FLOAT)]);
  const maskBias = op("Unsqueeze", [op("Mul", [op("Sub", ["const.one_f", mask]), "const.mask_value"]), "const.axis1"]);
  floatTensor("const.scale", [], Float32Array.of(1 / Math.sqrt(hidden)));

  for (let l = 0; l < layers; l++) {
    const p = `layer${l}`;
    const q = dense(state, `${p}.query`, hidden, hidden);
    const k = dense(state, `${p}.key`, hidden, hidden);
    const v = dense(state, `${p}.value`, hidden, hidden);
    const scores = op("Mul", [op("MatMul", [q, op("Transpose", [k], [intsAttr("perm", [0, 2, 1])])]), "const.scale"]);
    const probabilities = op("Softmax", [op("Add", [scores, maskBias])], [intAttr("axis", -1)]);
    const attention = dense(op("MatMul", [probabilities, v]), `${p}.attention_output`, hidden, hidden);
    state = layerNorm(op("Add", [state, attention]), `${p}.attention_norm`);
    const feedForward = dense(op("Tanh", [dense(state, `${p}.intermediate`, hidden, intermediate)]), `${p}.output`, intermediate, hidden);
    state = layerNorm(op("Add", [state, feedForward]), `${p}.output_norm`);
  }
  const tensorType = (elemType, dims) => ({
    tensor_type: { elem_type: elemType, shape: { dim: dims.map((d) => (typeof d === "string" ? { dim_param: d } : { dim_value: d })) } },
  });
  const input = ["input_ids", "attention_mask", "token_type_ids"].map((name) => ({
    name,
    type: tensorType(INT64, ["batch_size", "sequence_length"]),
  }));
  let output;
  if (head === "rerank") {
    // BERT's pooler on the [CLS] token, then one logit: what a cross-encoder reranker returns.
    const cls = op("Gather", [state, "const.zero"], [intAttr("axis", 1)]);
    const pooled = op("Tanh", [dense(cls, "pooler.dense", hidden, hidden)]);
    const logits = dense(pooled, "classifier", hidden, 1);
    node.push({ op_type: "Identity", name: "output", input: [logits], output: ["logits"], attribute: [] });
    output = [{ name: "logits", type: tensorType(FLOAT, ["batch_size", 1]) }];
  } else {
    node.push({ op_type: "Identity", name: "output", input: [state], output: ["last_hidden_state"], attribute: [] });
    output = [{ name: "last_hidden_state", type: tensorType(FLOAT, ["batch_size", "sequence_length", hidden]) }];
  }
  return { name: head === "rerank" ? "tiny-bert-reranker" : "tiny-bert", node, initializer, input, output };
}

function encodeModel(graph) {
  // keepCase: the objects below use the .proto field names (raw_data, op_type, …) as written.
  const root = new protobuf.Root().loadSync(join(here, "onnx-subset.proto"), { keepCase: true });
  const ModelProto = root.lookupType("onnx.ModelProto");
  const model = {
    ir_version: 8,
    producer_name: "docdb make-tiny-model",
    producer_version: String(GENERATOR_VERSION),
    opset_import: [{ domain: "", version: 17 }],
    graph,
  };
  const problem = ModelProto.verify(model);
  if (problem) throw new Error(`invalid ONNX model object: ${problem}`);
  return ModelProto.encode(ModelProto.fromObject(model)).finish();
}

function isCurrent(markerPath, settings) {
  try {
    return JSON.stringify(JSON.parse(readFileSync(markerPath, "utf8"))) === JSON.stringify(settings);
  } catch {
    return false;
  }
}

/**
 * Writes the model folder unless an identical one (same options, same generator version) is
 * there already. Concurrent callers are safe: each writes a private folder and renames it.
 * Returns the folder.
 */
export function makeTinyModel(options = {}) {
  const outDir = resolve(options.outDir ?? DEFAULT_TINY_MODEL_DIR);
  const settings = {
    version: GENERATOR_VERSION,
    hidden: options.hidden ?? 32,
    layers: options.layers ?? 2,
    intermediate: options.intermediate ?? 2 * (options.hidden ?? 32),
    maxPositions: 512,
    seed: options.seed ?? 7,
    ...(options.extraWords?.length ? { extraWords: [...new Set(options.extraWords)].sort() } : {}),
    ...(options.rerank ? { head: "rerank" } : {}),
  };
  const markerPath = join(outDir, MARKER_FILE);
  if (!options.force && isCurrent(markerPath, settings)) return outDir;
  const vocab = vocabulary(settings.extraWords);
  const { tokenizer, tokenizerConfig } = tokenizerFiles(vocab);
  const vocabSize = Object.keys(vocab).length;
  const rerank = settings.head === "rerank";
  const config = {
    _name_or_path: rerank ? "docdb/tiny-bert-reranker" : "docdb/tiny-bert",
    architectures: [rerank ? "BertForSequenceClassification" : "BertModel"],
    ...(rerank ? { num_labels: 1, id2label: { 0: "LABEL_0" }, label2id: { LABEL_0: 0 } } : {}),
    model_type: "bert",
    hidden_size: settings.hidden,
    num_hidden_layers: settings.layers,
    num_attention_heads: 1,
    intermediate_size: settings.intermediate,
    max_position_embeddings: settings.maxPositions,
    type_vocab_size: 2,
    vocab_size: vocabSize,
    pad_token_id: 0,
    layer_norm_eps: 1e-12,
  };
  const bytes = encodeModel(buildGraph({ vocabSize, ...settings }));

  const staging = `${outDir}.tmp-${process.pid}-${Date.now()}`;
  mkdirSync(join(staging, "onnx"), { recursive: true });
  writeFileSync(join(staging, "config.json"), `${JSON.stringify(config, null, 2)}\n`);
  writeFileSync(join(staging, "tokenizer.json"), JSON.stringify(tokenizer));
  writeFileSync(join(staging, "tokenizer_config.json"), `${JSON.stringify(tokenizerConfig, null, 2)}\n`);
  writeFileSync(join(staging, "onnx", "model.onnx"), bytes);
  writeFileSync(join(staging, MARKER_FILE), `${JSON.stringify(settings)}\n`);
  mkdirSync(dirname(outDir), { recursive: true });
  if (!options.force && isCurrent(markerPath, settings)) {
    // Another process finished the same folder while this one was writing.
    rmSync(staging, { recursive: true, force: true });
    return outDir;
  }
  // Move the stale folder aside (one atomic rename) rather than deleting it in place, so the
  // model path never holds a half-written folder.
  const stale = `${outDir}.old-${process.pid}-${Date.now()}`;
  try {
    renameSync(outDir, stale);
  } catch {
    // nothing there yet
  }
  try {
    renameSync(staging, outDir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(markerPath)) throw error;
  }
  rmSync(stale, { recursive: true, force: true });
  return outDir;
}

function parseArgs(argv) {
  const options = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${arg} needs a positive integer`);
      return n;
    };
    if (arg === "--hidden") options.hidden = value();
    else if (arg === "--layers") options.layers = value();
    else if (arg === "--intermediate") options.intermediate = value();
    else if (arg === "--seed") options.seed = value();
    else if (arg === "--force") options.force = true;
    else if (arg === "--rerank") options.rerank = true;
    else if (arg.startsWith("--")) throw new Error(`unknown option ${arg}`);
    else options.outDir = arg;
  }
  return options;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const dir = makeTinyModel(parseArgs(process.argv.slice(2)));
    process.stdout.write(`${dir}\n`);
  } catch (error) {
    process.stderr.write(`make-tiny-model: ${error.message}\n`);
    process.exitCode = 1;
  }
}
