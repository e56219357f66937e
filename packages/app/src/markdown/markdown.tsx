import { Component, type ComponentChildren } from "preact"
import { CodeBlock } from "../highlight/code-block.tsx"
import { type Block, parseBlocks } from "./blocks.ts"
import { type Inline, parseInline } from "./inline.ts"

/**
 * Markdown rendered as Preact elements, never as an HTML string: every piece of the source ends up in a
 * text node or an attribute Preact sets, so raw HTML in a message shows as the text it is.
 */
const InlineView = ({ nodes }: { nodes: ReadonlyArray<Inline> }): ComponentChildren =>
  nodes.map((node) => {
    switch (node.type) {
      case "text":
        return node.text
      case "code":
        return <code class="inline-code">{node.text}</code>
      case "break":
        return <br />
      case "em":
        return (
          <em>
            <InlineView nodes={node.children} />
          </em>
        )
      case "strong":
        return (
          <strong>
            <InlineView nodes={node.children} />
          </strong>
        )
      case "del":
        return (
          <del>
            <InlineView nodes={node.children} />
          </del>
        )
      case "link":
        return node.href === undefined ? (
          <span class="refused-link" title="link not followed: only http, https and mailto links open">
            <InlineView nodes={node.children} />
          </span>
        ) : (
          <a href={node.href} target="_blank" rel="noopener noreferrer">
            <InlineView nodes={node.children} />
          </a>
        )
    }
  })

const Text = ({ text }: { text: string }) => <InlineView nodes={parseInline(text)} />

const BlockBody = ({ block }: { block: Block }): ComponentChildren => {
  switch (block.type) {
    case "heading": {
      const Tag = `h${Math.min(block.level + 1, 6)}` as "h2"
      return (
        <Tag class={`md-h md-h${block.level}`}>
          <Text text={block.text} />
        </Tag>
      )
    }
    case "paragraph":
      return (
        <p>
          <Text text={block.text} />
        </p>
      )
    case "code":
      return <CodeBlock code={block.code} lang={block.lang} />
    case "rule":
      return <hr />
    case "quote":
      return (
        <blockquote>
          <Blocks blocks={block.blocks} />
        </blockquote>
      )
    case "list": {
      const items = block.items.map((item) => (
        <li>
          {item.length === 1 && item[0]!.type === "paragraph" ? (
            <Text text={item[0]!.text} />
          ) : (
            <Blocks blocks={item} />
          )}
        </li>
      ))
      return block.ordered ? <ol start={block.start === 1 ? undefined : block.start}>{items}</ol> : <ul>{items}</ul>
    }
    case "table":
      return (
        // Wide tables scroll inside their own box; the page never scrolls sideways.
        <div class="table-scroll">
          <table>
            <thead>
              <tr>
                {block.head.map((cell, i) => (
                  <th class={block.align[i] ? `align-${block.align[i]}` : undefined}>
                    <Text text={cell} />
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {block.rows.map((row) => (
                <tr>
                  {row.map((cell, i) => (
                    <td class={block.align[i] ? `align-${block.align[i]}` : undefined}>
                      <Text text={cell} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )
  }
}

/** One top-level block, re-rendered only when its own source changes (streaming touches the last one). */
class BlockView extends Component<{ block: Block }> {
  override shouldComponentUpdate(next: { block: Block }) {
    return next.block.source !== this.props.block.source || next.block.type !== this.props.block.type
  }
  override render() {
    return <BlockBody block={this.props.block} />
  }
}

const Blocks = ({ blocks }: { blocks: ReadonlyArray<Block> }) => (
  <>
    {blocks.map((block) => (
      <BlockBody block={block} />
    ))}
  </>
)

/** A message's text as markdown. Blocks are keyed by position, so text streaming in only appends. */
export const Markdown = ({ text }: { text: string }) => (
  <div class="markdown" data-testid="markdown">
    {parseBlocks(text).map((block, i) => (
      <BlockView key={i} block={block} />
    ))}
  </div>
)
