import { tinyModelDir, tinyRerankerDir } from "./tiny-model.js";

/** Builds the generated test models once, before test files run in parallel and read them. */
export default function setup(): void {
  tinyModelDir(32);
  tinyModelDir(48);
  tinyRerankerDir();
}
