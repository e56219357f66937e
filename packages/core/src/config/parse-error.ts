import type { ParseError } from "jsonc-parser"

/**
 * What each JSONC syntax error means, in words a person editing the file recognises; keyed by jsonc-parser's
 * `ParseErrorCode` values (a const enum, which this build cannot read at run time).
 */
const meaning: Record<number, string> = {
  /* InvalidSymbol */
  1: "expected a value (a string in double quotes, a number, an object, an array, true, false or null)",
  2: /* InvalidNumberFormat */ "malformed number",
  3: /* PropertyNameExpected */ 'expected a property name in double quotes (e.g. "model")',
  4: /* ValueExpected */ "expected a value (a string, number, object, array, true, false or null)",
  5: /* ColonExpected */ 'expected ":" after the property name',
  6: /* CommaExpected */ 'expected "," between entries',
  7: /* CloseBraceExpected */ 'expected "}" to close the object (or a "," before the next entry)',
  8: /* CloseBracketExpected */ 'expected "]" to close the array (or a "," before the next item)',
  9: /* EndOfFileExpected */ "unexpected text after the end of the document",
  10: /* InvalidCommentToken */ "malformed comment",
  11: /* UnexpectedEndOfComment */ 'a "/*" comment is never closed',
  12: /* UnexpectedEndOfString */ "a string is never closed (missing closing double quote)",
  13: /* UnexpectedEndOfNumber */ "a number ends early",
  14: /* InvalidUnicode */ "malformed \\u escape",
  15: /* InvalidEscapeCharacter */ "invalid escape after a backslash",
  16: /* InvalidCharacter */ "invalid character in a string (control characters must be escaped)",
}

/** 1-based line and column of a character offset. */
export const lineColumn = (text: string, offset: number) => {
  const before = text.slice(0, offset)
  const line = before.split("\n").length
  return { line, column: offset - before.lastIndexOf("\n") }
}

/**
 * A syntax error as `line L, column C: <what is wrong>`, followed by the offending line and a caret under
 * the column, so the reader sees the spot without opening the file.
 */
export const describeParseError = (text: string, error: ParseError): string => {
  const { line, column } = lineColumn(text, error.offset)
  const source = (text.split("\n")[line - 1] ?? "").replace(/\r$/, "")
  const token = text.slice(error.offset, error.offset + Math.min(error.length, 40))
  const found = error.error === 1 && token.trim() ? `unexpected "${token}": ` : ""
  const what = `${found}${meaning[error.error] ?? "syntax error"}`
  const shown = source.length > 120 ? "" : `\n  ${source}\n  ${" ".repeat(Math.max(0, column - 1))}^`
  return `syntax error at line ${line}, column ${column}: ${what}${shown}`
}
