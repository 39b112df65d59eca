// embedMany's signals: a one-text call (a query) hands the provider its own signal, made only
// when the provider reads it, with no listener added per attempt; and it still ends at its
// deadline when the provider never answers, whether or not it read the signal.
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { EmbeddingError, type EmbeddingModel, embedMany } from "../src/index.js";

function model(embed: EmbeddingModel["embed"], maxBatchSize = 8): EmbeddingModel {
  return { provider: "test", modelId: "t", dimensions: 2, maxBatchSize, supportsParallelCalls: false, embed } as EmbeddingModel;
}

describe("embedMany signals", () => {
  it("adds no abort listener for a one-batch call's attempt", async () => {
    const seen: number[] = [];
    const m = model(async (texts, options) => {
      if (options.signal) seen.push(getEventListeners(options.signal, "abort").length);
      return texts.map(() => new Float32Array([1, 0]));
    });
    await embedMany(m, ["q"], { kind: "query", deadlineMs: 60_000 });
    expect(seen).toEqual([0]);
  });

  it("makes the call's controller only when the provider reads its signal", async () => {
    const Original = globalThis.AbortController;
    let made = 0;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        made++;
      }
    };
    try {
      const vectors = (texts: string[]) => texts.map(() => new Float32Array([1, 0]));
      await embedMany(
        model(async (texts) => vectors(texts)),
        ["q"],
        { kind: "query", deadlineMs: 60_000 },
      );
      expect(made).toBe(0);
      await embedMany(
        model(async (texts, options) => (options.signal?.aborted ? [] : vectors(texts))),
        ["q"],
        { kind: "query", deadlineMs: 60_000 },
      );
      expect(made).toBe(1);
    } finally {
      globalThis.AbortController = Original;
    }
  });

  it("ends a one-batch call at its deadline when the provider ignores the signal, and aborts that signal", async () => {
    let given: AbortSignal | undefined;
    const m = model(async (_texts, options) => {
      given = options.signal;
      return new Promise<Float32Array[]>(() => undefined);
    });
    const error = await embedMany(m, ["q"], { kind: "query", deadlineMs: 50, maxRetries: 0 }).catch((e: unknown) => e);
    expect(EmbeddingError.isInstance(error)).toBe(true);
    expect((error as EmbeddingError).message).toMatch(/did not answer within/);
    expect(given?.aborted).toBe(true);
  });

  it("ends a one-batch call at its deadline when the provider never reads the signal, and hands a late reader an aborted one", async () => {
    let read: (() => AbortSignal | undefined) | undefined;
    const m = model(async (_texts, options) => {
      read = () => options.signal;
      return new Promise<Float32Array[]>(() => undefined);
    });
    const error = await embedMany(m, ["q"], { kind: "query", deadlineMs: 50, maxRetries: 0 }).catch((e: unknown) => e);
    expect((error as EmbeddingError).message).toMatch(/did not answer within/);
    const late = read?.();
    expect(late?.aborted).toBe(true);
    expect(late?.reason).toBe(error);
  });

  it("stops a one-batch call when the caller aborts", async () => {
    const controller = new AbortController();
    const m = model(async () => {
      setImmediate(() => controller.abort(new Error("caller stopped")));
      return new Promise<Float32Array[]>(() => undefined);
    });
    await expect(embedMany(m, ["q"], { kind: "query", signal: controller.signal })).rejects.toThrow("caller stopped");
  });

  it("still gives each attempt of a many-batch call a signal of its own", async () => {
    const signals = new Set<AbortSignal>();
    const m = model(async (texts, options) => {
      if (options.signal) signals.add(options.signal);
      return texts.map(() => new Float32Array([1, 0]));
    }, 2);
    const vectors = await embedMany(m, ["a", "b", "c", "d", "e"], { kind: "document", deadlineMs: 60_000 });
    expect(vectors).toHaveLength(5);
    expect(signals.size).toBe(3);
  });
});

describe("embedMany, one batch", () => {
  it("retries a provider that throws at once like one that rejects, and reports progress once", async () => {
    let calls = 0;
    const progress: number[][] = [];
    const m = model(((texts: string[]) => {
      calls++;
      if (calls === 1) throw new EmbeddingError("busy", { provider: "test", retryable: true });
      return Promise.resolve(texts.map(() => new Float32Array([1, 0])));
    }) as EmbeddingModel["embed"]);
    const vectors = await embedMany(m, ["q"], { kind: "query", initialDelayMs: 1, onProgress: (d, t) => progress.push([d, t]) });
    expect(vectors).toHaveLength(1);
    expect(calls).toBe(2);
    expect(progress).toEqual([[1, 1]]);
  });
});
