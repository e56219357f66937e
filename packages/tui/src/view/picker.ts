import { BoxRenderable, type CliRenderer, type KeyEvent, TextRenderable } from "@opentui/core"
import { color, type Line, styled } from "./style.ts"

/**
 * The one overlay: a titled list that filters as you type, moved with the arrows and chosen with Enter,
 * plus keys of its own (`keys`). Session list, pickers, confirmations, help and text input are all this.
 */
export interface PickerItem {
  readonly id: string
  readonly label: string
  readonly detail?: string
  /** Drawn dimmed and refused: e.g. a model whose provider key is missing. */
  readonly disabled?: string
}

export interface PickerSpec {
  readonly title: string
  readonly items: ReadonlyArray<PickerItem>
  /** Lines shown above the list (what a confirmation will lose, a diff...). */
  readonly body?: ReadonlyArray<Line>
  /** A one-line hint under the list. */
  readonly hint?: string
  /** Type-to-filter (off for confirmations, whose letters are keys). */
  readonly filter?: boolean
  /** A free-text input instead of a list: Enter answers the typed text. */
  readonly input?: { readonly initial?: string }
  readonly onChoose?: (item: PickerItem) => void
  readonly onText?: (text: string) => void
  /** Extra keys: return true when handled. */
  readonly keys?: (key: KeyEvent, current: PickerItem | undefined) => boolean
}

export class Picker {
  readonly box: BoxRenderable
  private readonly text: TextRenderable
  private spec: PickerSpec | undefined
  private query = ""
  private index = 0

  constructor(
    private readonly renderer: CliRenderer,
    private readonly onClose: () => void,
  ) {
    this.box = new BoxRenderable(renderer, {
      id: "picker",
      position: "absolute",
      top: 1,
      left: 2,
      right: 2,
      bottom: 2,
      zIndex: 10,
      border: true,
      borderColor: color.accent,
      backgroundColor: "#1d2129",
      visible: false,
      paddingLeft: 1,
      paddingRight: 1,
    })
    this.text = new TextRenderable(renderer, { id: "picker-text", content: "", flexGrow: 1 })
    this.box.add(this.text)
  }

  get open() {
    return this.spec !== undefined
  }

  show(spec: PickerSpec) {
    this.spec = spec
    this.query = spec.input?.initial ?? ""
    this.index = Math.max(
      0,
      spec.items.findIndex((i) => !i.disabled),
    )
    this.box.title = ` ${spec.title} `
    this.box.visible = true
    this.draw()
  }

  close() {
    if (!this.spec) return
    this.spec = undefined
    this.box.visible = false
    this.onClose()
  }

  private visible(): ReadonlyArray<PickerItem> {
    const spec = this.spec
    if (!spec) return []
    if (!spec.filter || spec.input || this.query === "") return spec.items
    const q = this.query.toLowerCase()
    return spec.items.filter((i) => `${i.label} ${i.detail ?? ""}`.toLowerCase().includes(q))
  }

  private draw() {
    const spec = this.spec
    if (!spec) return
    const lines: Array<Line> = [...(spec.body ?? [])]
    if (spec.body?.length) lines.push([])
    if (spec.input || spec.filter) {
      lines.push([
        { text: spec.input ? "› " : "search: ", fg: color.dim },
        { text: this.query, fg: color.text },
        { text: "█", fg: color.accent },
      ])
      lines.push([])
    }
    const items = this.visible()
    const height = Math.max(3, this.renderer.height - 8 - lines.length)
    const start = Math.max(0, Math.min(this.index - Math.floor(height / 2), items.length - height))
    items.slice(start, start + height).forEach((item, i) => {
      const at = start + i === this.index
      lines.push([
        { text: at ? "▶ " : "  ", fg: color.accent },
        { text: item.label, fg: item.disabled ? color.dim : at ? color.accent : color.text, bold: at },
        { text: item.detail ? `  ${item.detail}` : "", fg: color.dim },
        { text: item.disabled ? `  (${item.disabled})` : "", fg: color.warn },
      ])
    })
    if (!spec.input && items.length === 0) lines.push([{ text: "  (nothing matches)", fg: color.dim }])
    if (spec.hint) lines.push([], [{ text: spec.hint, fg: color.dim }])
    this.text.content = styled(lines)
  }

  /** Handles a key while open; returns true when it was the picker's. */
  key(key: KeyEvent): boolean {
    const spec = this.spec
    if (!spec) return false
    const items = this.visible()
    const current = items[this.index]
    if (key.name === "escape") return (this.close(), true)
    if (spec.keys?.(key, current)) return true
    if (key.name === "up" || (key.ctrl && key.name === "p")) this.index = Math.max(0, this.index - 1)
    else if (key.name === "down" || (key.ctrl && key.name === "n"))
      this.index = Math.min(items.length - 1, this.index + 1)
    else if (key.name === "return") {
      if (spec.input) {
        const text = this.query
        this.close()
        spec.onText?.(text)
      } else if (current && !current.disabled) {
        this.close()
        spec.onChoose?.(current)
      }
      return true
    } else if (key.name === "backspace") {
      this.query = this.query.slice(0, -1)
      this.index = 0
    } else if (
      (spec.filter || spec.input) &&
      !key.ctrl &&
      !key.meta &&
      key.sequence.length === 1 &&
      key.sequence >= " "
    ) {
      this.query += key.sequence
      if (!spec.input) this.index = 0
    } else return true
    this.draw()
    return true
  }

  redraw() {
    this.draw()
  }
}
