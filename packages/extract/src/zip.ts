// Reads a zip container (DOCX, PPTX, XLSX, ODS, EPUB) with limits on entry count and on the
// bytes actually inflated, so a zip bomb stops with a clear error instead of filling memory.
import { Unzip, UnzipInflate, UnzipPassThrough } from "fflate";
import { ExtractError, type ExtractLimits } from "./types.js";

export interface ZipLimits {
  maxEntries: ExtractLimits["maxEntries"];
  maxInflatedBytes: ExtractLimits["maxInflatedBytes"];
}

/**
 * Inflates the entries whose names `want` accepts (all when omitted) and returns them by name.
 * Counts every entry against `maxEntries` and every inflated byte against `maxInflatedBytes`.
 */
export function readZip(bytes: Uint8Array, limits: ZipLimits, want?: (name: string) => boolean): Map<string, Uint8Array> {
  if (bytes.length < 4 || bytes[0] !== 0x50 || bytes[1] !== 0x4b) {
    throw new ExtractError("corrupt", "the file is not a zip container (the format needs one); it may be damaged or mislabelled");
  }
  const out = new Map<string, Uint8Array>();
  let entries = 0;
  let inflated = 0;
  let failure: unknown;
  const unzip = new Unzip((file) => {
    entries += 1;
    if (entries > limits.maxEntries) {
      failure ??= new ExtractError("limit_exceeded", `the zip container has more than ${limits.maxEntries} entries`);
      return;
    }
    if (want && !want(file.name)) return;
    const parts: Uint8Array[] = [];
    file.ondata = (err, data, final) => {
      if (failure) return;
      if (err) {
        failure = new ExtractError("corrupt", `the zip entry ${JSON.stringify(file.name.slice(0, 100))} is damaged`);
        return;
      }
      inflated += data.length;
      if (inflated > limits.maxInflatedBytes) {
        failure = new ExtractError(
          "limit_exceeded",
          `the zip container inflates to more than ${limits.maxInflatedBytes} bytes (a zip bomb, or a file too large to read)`,
        );
        file.terminate();
        return;
      }
      parts.push(data);
      if (final) out.set(file.name, concat(parts));
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  unzip.register(UnzipPassThrough);
  const step = 64 * 1024;
  try {
    for (let offset = 0; offset < bytes.length && !failure; offset += step) {
      unzip.push(bytes.subarray(offset, offset + step), offset + step >= bytes.length);
    }
  } catch (error) {
    failure ??= new ExtractError("corrupt", `the zip container is damaged: ${(error as Error).message}`.slice(0, 300));
  }
  if (failure) throw failure;
  if (entries === 0) throw new ExtractError("corrupt", "the zip container has no entries; the file is damaged or empty");
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const size = parts.reduce((sum, part) => sum + part.length, 0);
  const whole = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    whole.set(part, at);
    at += part.length;
  }
  return whole;
}
