// @docdb/eval: retrieval evaluation (test sets, metrics, the run behind `docdb eval`).
export { type CorpusDocument, type EvalDataset, type EvalQuery, loadDataset, readCorpus } from "./dataset.js";
export { corpusIdOfFile, type LoadedDocuments, loadDocumentFolder } from "./documents.js";
export {
  collapseToDocuments,
  type Judgments,
  meanMetrics,
  percentile,
  type QueryMetrics,
  queryMetrics,
  type RankedDocument,
} from "./metrics.js";
export { type EvalMetrics, type EvalProgress, type EvalReport, type EvaluateOptions, evaluateRetrieval } from "./run.js";
