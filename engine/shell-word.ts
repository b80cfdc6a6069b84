/**
 * `word` as one word of a POSIX shell command line, for commands printed to be copied:
 * as it is when it holds only characters no shell treats specially, else single-quoted
 * (a nested run id holds `#`, `[` and `]`; a directory may hold spaces).
 */
export function shellWord(word: string): string {
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
