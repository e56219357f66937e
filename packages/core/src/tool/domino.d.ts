/**
 * The part of `@mixmark-io/domino` (turndown's DOM) that `html-worker.ts` uses. The package's own
 * declaration file declares a module named `domino`, not its published name, so it is described here.
 */
declare module "@mixmark-io/domino" {
  /** A DOM node, as far as the worker walks it. */
  export interface DominoNode {
    readonly nodeType: number
    readonly nodeValue: string | null
    readonly tagName?: string
    readonly firstChild: DominoNode | null
    readonly nextSibling: DominoNode | null
  }
  export interface DominoDocument {
    readonly body: DominoNode | null
    readonly documentElement: DominoNode
  }
  const domino: { createDocument(html?: string, force?: boolean): DominoDocument }
  export default domino
}
