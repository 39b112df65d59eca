// contentHash: SHA-256 of the UTF-8 bytes in hex, whichever Node API computes it (stored hashes
// must not change: replaced documents keep vectors by comparing them).
import { describe, expect, it } from "vitest";
import { contentHash } from "../src/stored-chunks.js";

describe("contentHash", () => {
  it("is the SHA-256 of the text's UTF-8 bytes, in hex", () => {
    expect(contentHash("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(contentHash("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    // Japanese and a character outside the BMP: UTF-8, not UTF-16 or Latin-1.
    expect(contentHash("日本語のテキスト, text 😀")).toBe("f49ecb1bac3d59010d1b853357a106adbd1a07559449796743dd1f3b88ededc9");
  });
});
