/**
 * What an author's files are read as: strictly UTF-8 text, and a problem in a prompt file is a
 * FileError, with the file's line where there is one (load.ts names the file in front of it).
 */

/** Strict: a byte that is not UTF-8 would be published as U+FFFD, text the author never wrote. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A text file's bytes as text, or the 1-based line of its first byte that is not UTF-8. Lines are
 * split on the newline byte, which never occurs inside a UTF-8 sequence.
 */
export function utf8Text(bytes: Uint8Array): string | { line: number } {
  try {
    return UTF8.decode(bytes);
  } catch {
    let line = 1;
    for (let start = 0, end = 0; end <= bytes.length; end++) {
      if (end < bytes.length && bytes[end] !== 0x0a) continue;
      try {
        UTF8.decode(bytes.subarray(start, end));
      } catch {
        return { line };
      }
      line++;
      start = end + 1;
    }
    return { line };
  }
}

/** What an author is told of a file that is not UTF-8 text. */
export const NOT_UTF8 =
  'is not UTF-8 text: save it as UTF-8 (what is published is text, and the gateway takes only UTF-8)';

/** A prompt file that cannot be read as a record; `line`: the file's 1-based line, when known. */
export class FileError extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(message);
  }
}
