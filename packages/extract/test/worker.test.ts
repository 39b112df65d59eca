// extractInWorker / extractAuto / extractFile: the worker thread (the built dist/extract-worker.mjs)
// gives what extraction in this thread gives, carries errors back with their code, and is stopped on time.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { extract, extractFile, extractInWorker, extractWorkerScript } from "../src/index.js";
import { failure } from "./fixtures/failure.js";
import { makePdf } from "./fixtures/pdf.js";

const dir = mkdtempSync(join(tmpdir(), "docdb-extract-worker-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sample = () =>
  makePdf({
    title: "Worker sample",
    author: "Ann",
    created: new Date("2024-01-01T00:00:00Z"),
    pages: [
      { lines: [{ text: "Heading", size: 20 }, "English words here.", "日本語の文章です。"] },
      { image: true },
      { lines: ["Last page."] },
    ],
  });

describe("extraction in a worker thread", () => {
  it("finds the built worker script", () => {
    expect(extractWorkerScript(), "packages/extract/dist/extract-worker.mjs is missing: run `pnpm build` first").toMatch(
      /extract-worker\.mjs$/,
    );
  });

  it("returns what extraction in this thread returns", async () => {
    const here = await extract({ bytes: sample(), name: "a.pdf" });
    const there = await extractInWorker({ bytes: sample(), name: "a.pdf" });
    expect(there).toEqual(here);
    expect(there.segments.map((s) => s.locator.page)).toEqual([1, 3]);
  });

  it("copies the caller's bytes unless asked to transfer them", async () => {
    const bytes = sample();
    await extractInWorker({ bytes, name: "a.pdf" });
    expect(bytes.length).toBeGreaterThan(0);
    const handed = sample();
    await extractInWorker({ bytes: handed, name: "a.pdf" }, { transfer: true });
    expect(handed.length).toBe(0);
  });

  it("carries errors back with their code and message", async () => {
    const locked = makePdf({ userPassword: "pw", pages: [{ lines: ["x"] }] });
    const here = await failure(extract({ bytes: locked, name: "a.pdf" }));
    const there = await failure(extractInWorker({ bytes: locked, name: "a.pdf" }));
    expect([there.code, there.message]).toEqual([here.code, here.message]);
    expect(there.code).toBe("encrypted");
    expect((await failure(extractInWorker({ bytes: makePdf({ pages: [{ image: true }] }), name: "a.pdf" }))).code).toBe("no_text_layer");
    expect((await failure(extractInWorker({ bytes: new Uint8Array([1, 2, 3]), name: "a.bin" }))).code).toBe("unsupported_format");
  });

  it("stops a worker that takes longer than timeoutMs", { timeout: 120_000 }, async () => {
    const big = makePdf({ pages: Array.from({ length: 300 }, (_, i) => ({ lines: [`page ${i + 1}`] })) });
    const error = await failure(extractInWorker({ bytes: big, name: "big.pdf" }, { timeoutMs: 1 }));
    expect(error.code).toBe("limit_exceeded");
    expect(error.message).toContain("took longer than");
  });

  it("stops a worker that outgrows maxMemoryMb", { timeout: 120_000 }, async () => {
    const error = await failure(extractInWorker({ bytes: sample(), name: "a.pdf" }, { maxMemoryMb: 4 }));
    expect(error.code).toBe("limit_exceeded");
    expect(error.message).toContain("more than 4 MiB of memory");
  });

  it("extractFile reads a file, in a worker from the threshold up, and refuses an oversized one before reading it", async () => {
    const path = join(dir, "sample.pdf");
    writeFileSync(path, sample());
    const here = await extract({ bytes: sample(), name: "sample.pdf" });
    expect(await extractFile(path, { workerThresholdBytes: 0 })).toEqual(here);
    expect(await extractFile(path)).toEqual(here);
    const error = await failure(extractFile(path, { limits: { maxBytes: 100 } }));
    expect(error.code).toBe("too_large");
  });

  it("works from the built package (the worker found beside dist/index.js)", async () => {
    const built = (await import(join(__dirname, "../dist/index.js"))) as typeof import("../src/index.js");
    const result = await built.extractInWorker({ bytes: sample(), name: "a.pdf" });
    expect(result.title).toBe("Worker sample");
    const error = await built
      .extractInWorker({ bytes: makePdf({ pages: [{ image: true }] }), name: "a.pdf" })
      .catch((e: Error & { code?: string }) => e);
    expect((error as { code?: string }).code).toBe("no_text_layer");
  });
});
