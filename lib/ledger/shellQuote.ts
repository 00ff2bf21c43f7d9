// The one place a shell command is built: the command an ssh lane runs. Every word is quoted.

/** One word for a POSIX shell: in single quotes, an embedded ' written as '\''. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** `NAME='value'` for a prefix assignment; the name is checked because it is not quoted. */
export function shellAssign(name: string, value: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`not a variable name: ${JSON.stringify(name)}`);
  return `${name}=${shellQuote(value)}`;
}
