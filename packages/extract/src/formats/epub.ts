// Placeholder: this format's extractor is being written (issue 24). It must not land as is.
import { ExtractError, type Extractor } from "../types.js";

export const extractor: Extractor = {
  formats: [],
  async extract() {
    throw new ExtractError("unsupported_format", "not written yet");
  },
};
