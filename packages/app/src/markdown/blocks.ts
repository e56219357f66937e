/**
 * Block markdown, line by line: ATX headings, fenced code, block quotes, bullet and ordered lists (nested
 * by indentation), GFM tables, thematic breaks and paragraphs. Each top-level block keeps its source
 * (`source`), so a view can skip blocks whose source did not change while text streams in: only the last
 * block is re-rendered per delta. A fence not closed yet is a code block already (`closed: false`), so
 * streaming code never flips between paragraph and code.
 */
export type Block =
  | { readonly type: "heading"; readonly source: string; readonly level: number; readonly text: string }
  | { readonly type: "paragraph"; readonly source: string; readonly text: string }
  | {
      readonly type: "code"
      readonly source: string
      readonly lang: string
      readonly code: string
      readonly closed: boolean
    }
  | {
      readonly type: "list"
      readonly source: string
      readonly ordered: boolean
      readonly start: number
      readonly items: ReadonlyArray<ReadonlyArray<Block>>
    }
  | { readonly type: "quote"; readonly source: string; readonly blocks: ReadonlyArray<Block> }
  | {
      readonly type: "table"
      readonly source: string
      readonly align: ReadonlyArray<"left" | "center" | "right" | undefined>
      readonly head: ReadonlyArray<string>
      readonly rows: ReadonlyArray<ReadonlyArray<string>>
    }
  | { readonly type: "rule"; readonly source: string }

const FENCE = /^ {0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)/
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/
const QUOTE = /^ {0,3}> ?/
const ITEM = /^( {0,12})([-*+]|\d{1,9}[.)])([ \t]+|$)/
const DELIMITER = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/

const blank = (line: string) => line.trim() === ""

/** Cells of a table row: split on unescaped pipes, outer pipes dropped. */
export const cells = (line: string): Array<string> => {
  let row = line.trim()
  if (row.startsWith("|")) row = row.slice(1)
  if (row.endsWith("|") && !row.endsWith("\\|")) row = row.slice(0, -1)
  const out: Array<string> = []
  let cell = ""
  for (let i = 0; i < row.length; i++) {
    if (row[i] === "\\" && row[i + 1] === "|") {
      cell += "|"
      i++
    } else if (row[i] === "|") {
      out.push(cell.trim())
      cell = ""
    } else cell += row[i]
  }
  out.push(cell.trim())
  return out
}

const isTableStart = (lines: ReadonlyArray<string>, i: number) =>
  lines[i]!.includes("|") && i + 1 < lines.length && DELIMITER.test(lines[i + 1]!) && lines[i + 1]!.includes("-")

/** Whether a line starts a block other than a paragraph (so it ends a paragraph before it). */
const interrupts = (lines: ReadonlyArray<string>, i: number) => {
  const line = lines[i]!
  return (
    FENCE.test(line) ||
    HEADING.test(line) ||
    RULE.test(line) ||
    QUOTE.test(line) ||
    (ITEM.test(line) && !blank(line.replace(ITEM, ""))) ||
    isTableStart(lines, i)
  )
}

const indentOf = (line: string) => line.length - line.trimStart().length

const dedent = (line: string, width: number) => {
  let n = 0
  while (n < width && line[n] === " ") n++
  return line.slice(n)
}

const listBlock = (lines: ReadonlyArray<string>, at: number): { block: Block; end: number } => {
  const first = ITEM.exec(lines[at]!)!
  const ordered = /\d/.test(first[2]!)
  const bullet = first[2]!.slice(-1)
  const items: Array<Array<string>> = []
  let i = at
  while (i < lines.length) {
    const marker = ITEM.exec(lines[i]!)
    if (!marker || /\d/.test(marker[2]!) !== ordered || marker[2]!.slice(-1) !== bullet) break
    if (items.length > 0 && indentOf(lines[i]!) > indentOf(lines[at]!) + 1) break
    const content = marker[1]!.length + marker[2]!.length + Math.min(Math.max(marker[3]!.length, 1), 4)
    const item = [lines[i]!.slice(marker[0].length)]
    i++
    while (i < lines.length) {
      const line = lines[i]!
      if (blank(line)) {
        // A blank line continues the item only when indented content follows it.
        let next = i + 1
        while (next < lines.length && blank(lines[next]!)) next++
        if (next < lines.length && indentOf(lines[next]!) >= content) {
          for (; i < next; i++) item.push("")
          continue
        }
        break
      }
      if (indentOf(line) >= content) {
        item.push(dedent(line, content))
        i++
        continue
      }
      // A new item of this list, or a lazy continuation of the item's paragraph.
      if (ITEM.test(line) || interrupts(lines, i) || blank(item.at(-1)!)) break
      item.push(line.trim())
      i++
    }
    items.push(item)
    if (i < lines.length && blank(lines[i]!)) {
      let next = i + 1
      while (next < lines.length && blank(lines[next]!)) next++
      const again = next < lines.length ? ITEM.exec(lines[next]!) : null
      if (again && indentOf(lines[next]!) <= indentOf(lines[at]!) + 1) i = next
      else break
    }
  }
  return {
    block: {
      type: "list",
      source: lines.slice(at, i).join("\n"),
      ordered,
      start: ordered ? Number.parseInt(first[2]!, 10) : 1,
      items: items.map((item) => parseBlocks(item.join("\n"))),
    },
    end: i,
  }
}

export const parseBlocks = (text: string): Array<Block> => {
  const lines = text.split("\n")
  const blocks: Array<Block> = []
  let i = 0
  while (i < lines.length) {
    const line = lines[i]!
    if (blank(line)) {
      i++
      continue
    }
    const fence = FENCE.exec(line)
    if (fence && !(fence[1]![0] === "`" && line.slice(fence[0].length).includes("`"))) {
      const marker = fence[1]!
      const indent = indentOf(line)
      const body: Array<string> = []
      let j = i + 1
      let closed = false
      for (; j < lines.length; j++) {
        const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(lines[j]!)
        if (close && close[1]![0] === marker[0] && close[1]!.length >= marker.length) {
          closed = true
          break
        }
        body.push(dedent(lines[j]!, indent))
      }
      const end = closed ? j + 1 : j
      blocks.push({
        type: "code",
        source: lines.slice(i, end).join("\n"),
        lang: fence[2]!.toLowerCase(),
        code: body.join("\n"),
        closed,
      })
      i = end
      continue
    }
    const heading = HEADING.exec(line)
    if (heading) {
      blocks.push({ type: "heading", source: line, level: heading[1]!.length, text: heading[2] ?? "" })
      i++
      continue
    }
    if (RULE.test(line)) {
      blocks.push({ type: "rule", source: line })
      i++
      continue
    }
    if (QUOTE.test(line)) {
      const body: Array<string> = []
      let j = i
      for (; j < lines.length && !blank(lines[j]!); j++) {
        if (QUOTE.test(lines[j]!)) body.push(lines[j]!.replace(QUOTE, ""))
        else if (interrupts(lines, j)) break
        else body.push(lines[j]!)
      }
      blocks.push({ type: "quote", source: lines.slice(i, j).join("\n"), blocks: parseBlocks(body.join("\n")) })
      i = j
      continue
    }
    if (ITEM.test(line) && indentOf(line) <= 3) {
      const { block, end } = listBlock(lines, i)
      blocks.push(block)
      i = end
      continue
    }
    if (isTableStart(lines, i)) {
      const head = cells(line)
      const align = cells(lines[i + 1]!).map((cell) =>
        cell.startsWith(":") && cell.endsWith(":")
          ? ("center" as const)
          : cell.endsWith(":")
            ? ("right" as const)
            : cell.startsWith(":")
              ? ("left" as const)
              : undefined,
      )
      const rows: Array<Array<string>> = []
      let j = i + 2
      for (; j < lines.length && !blank(lines[j]!) && lines[j]!.includes("|"); j++) {
        const row = cells(lines[j]!)
        rows.push(head.map((_, k) => row[k] ?? ""))
      }
      blocks.push({ type: "table", source: lines.slice(i, j).join("\n"), align, head, rows })
      i = j
      continue
    }
    const body = [line.trim()]
    let j = i + 1
    for (; j < lines.length && !blank(lines[j]!) && !interrupts(lines, j); j++) body.push(lines[j]!.trim())
    blocks.push({ type: "paragraph", source: lines.slice(i, j).join("\n"), text: body.join("\n") })
    i = j
  }
  return blocks
}
