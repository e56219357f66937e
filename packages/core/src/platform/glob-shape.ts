export interface GlobShape {
  /** The runtime this matcher belongs to (`"bun"`, `"node"`). */
  readonly runtime: string
  /**
   * A matcher for `pattern` (`*` within a segment, `**` across directories, `{a,b}`, `?`, `[...]`), tested
   * against `/`-separated relative paths.
   */
  compile(pattern: string): (path: string) => boolean
}
