import { Transform, type TransformCallback } from "node:stream";

/** Default longest stdio message, below the SDK's 10 MiB read buffer. */
export const DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024;

const NEWLINE = 0x0a;

/**
 * Passes newline-delimited messages through, dropping any line longer than `maxBytes`.
 * The SDK's stdio transport closes the connection when one message overflows its read
 * buffer; with this in front a runaway message costs that message only (no answer, like a
 * line of invalid JSON), and the server keeps serving.
 */
export class LineGuard extends Transform {
  private lineBytes = 0;
  private dropping = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onDrop: (bytes: number) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let from = 0;
    while (from < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, from);
      const end = newline === -1 ? chunk.length : newline + 1;
      const piece = chunk.subarray(from, end);
      this.lineBytes += piece.length;
      if (!this.dropping && this.lineBytes > this.maxBytes) {
        // What was already forwarded must be terminated so the reader skips it as bad JSON.
        this.dropping = true;
        this.push("\n");
      }
      if (!this.dropping) this.push(piece);
      if (newline !== -1) {
        if (this.dropping) this.onDrop(this.lineBytes);
        this.dropping = false;
        this.lineBytes = 0;
      }
      from = end;
    }
    done();
  }
}
