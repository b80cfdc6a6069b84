/**
 * Keeps the last `capBytes` bytes written to it: how child-process output is captured
 * without letting a chatty command fill memory. The tail is kept (not the head) because the
 * end of a log (the error, the summary, a `CRITERIA_OUTCOME=` line) matters most.
 */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  /** True once any byte has been dropped. */
  truncated = false;
  /** Bytes written in total, dropped ones included. */
  totalBytes = 0;

  /** @param capBytes bytes to keep (>= 0) */
  constructor(readonly capBytes: number) {}

  /** Appends `chunk`, dropping the oldest bytes beyond the cap. */
  write(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.capBytes && this.chunks.length > 0) {
      const excess = this.size - this.capBytes;
      const first = this.chunks[0];
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
      this.truncated = true;
    }
  }

  /**
   * The kept bytes as UTF-8. When the cut fell inside a multi-byte character, the partial
   * character's continuation bytes are skipped rather than decoded as U+FFFD.
   */
  text(): string {
    return this.decode().text;
  }

  /**
   * The kept bytes as UTF-8, and whether they were not valid UTF-8 (binary output, shown
   * with U+FFFD replacement characters: a step's output says so rather than hide it).
   */
  decode(): { text: string; binary: boolean } {
    const buf = Buffer.concat(this.chunks, this.size);
    let start = 0;
    if (this.truncated) while (start < buf.length && start < 3 && (buf[start] & 0xc0) === 0x80) start++;
    const bytes = buf.subarray(start);
    try {
      return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), binary: false };
    } catch {
      return { text: bytes.toString("utf8"), binary: true };
    }
  }
}
