// A text as lines, for cutting code: where each line starts, lengths of line runs, the line of an offset.

/** Offsets of line starts; the last entry is the text length, so line i is [starts[i], starts[i+1]). */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10 && i + 1 < text.length) starts.push(i + 1);
  starts.push(text.length);
  return starts;
}

export class Source {
  readonly starts: number[];
  constructor(readonly text: string) {
    this.starts = lineStarts(text);
  }
  get lineCount(): number {
    return this.starts.length - 1;
  }
  /** Characters in lines [from, to). */
  length(from: number, to: number): number {
    return (this.starts[to] as number) - (this.starts[from] as number);
  }
  /** 1-based line of a character offset. */
  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 2;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
}
