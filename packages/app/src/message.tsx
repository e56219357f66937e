import { Component } from "preact"
import { useState } from "preact/hooks"
import { json, modelName, stamp } from "./format.ts"
import type { ViewMessage, ViewPart } from "./types.ts"

/** What a message row can ask for; the session view runs it (with busy retry and error display). */
export interface MessageActions {
  correct(message: ViewMessage, part: ViewPart, text: string): Promise<boolean>
  retract(message: ViewMessage): void
  removePart(message: ViewMessage, part: ViewPart): void
}

/** A unified diff, line by line: additions, removals, hunk headers and file headers told apart. */
export const Diff = ({ diff }: { diff: string }) => (
  <pre class="diff" data-testid="diff">
    {diff.split("\n").map((line, i) => {
      const kind =
        line.startsWith("+++") || line.startsWith("---") || line.startsWith("diff ") || line.startsWith("index ")
          ? "meta"
          : line.startsWith("@@")
            ? "hunk"
            : line.startsWith("+")
              ? "add"
              : line.startsWith("-")
                ? "del"
                : "ctx"
      return (
        <span key={i} class={`line ${kind}`}>
          {line}
          {"\n"}
        </span>
      )
    })}
  </pre>
)

const LONG = 20_000

/** Output that may be huge: the first 20 000 characters, then a button for the rest. */
const Long = ({ text, label }: { text: string; label: string }) => {
  const [all, setAll] = useState(false)
  const shown = all || text.length <= LONG ? text : text.slice(0, LONG)
  return (
    <div class="io">
      <div class="io-label">{label}</div>
      <pre>{shown}</pre>
      {shown.length < text.length && (
        <button type="button" class="link" onClick={() => setAll(true)}>
          Show all {text.length.toLocaleString()} characters
        </button>
      )}
    </div>
  )
}

const inputSummary = (input: unknown) => {
  if (!input || typeof input !== "object") return typeof input === "string" ? input : ""
  const record = input as Record<string, unknown>
  const first = record.path ?? record.command ?? record.pattern ?? Object.values(record)[0]
  const text = typeof first === "string" ? first : ""
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}

const ToolView = ({ part, removable, onRemove }: { part: ViewPart; removable: boolean; onRemove: () => void }) => {
  const diff = typeof part.metadata?.diff === "string" ? part.metadata.diff : undefined
  // Open at first sight when there is something to watch; afterwards the person decides.
  const [open] = useState(!!diff || part.state === "running")
  return (
    <details
      class={`part tool state-${part.state ?? "unknown"}`}
      data-part-id={part.id}
      data-part-type="tool"
      open={open}
    >
      <summary>
        <span class="tool-name">{part.tool}</span>
        <span class={`badge state-${part.state}`}>{part.state}</span>
        <span class="muted">{inputSummary(part.input)}</span>
        {removable && <RemoveButton onRemove={onRemove} />}
      </summary>
      <div class="io">
        <div class="io-label">Input</div>
        <pre>{json(part.input)}</pre>
      </div>
      {diff !== undefined && <Diff diff={diff} />}
      {part.output !== undefined && <Long label="Output" text={part.output} />}
      {part.error !== undefined && (
        <div class="io error">
          <div class="io-label">Error</div>
          <pre>{part.error}</pre>
        </div>
      )}
    </details>
  )
}

/** Removes a tool or reasoning part; inside a `<summary>`, so the click must not also toggle it. */
const RemoveButton = ({ onRemove }: { onRemove: () => void }) => (
  <button
    type="button"
    class="small danger"
    data-testid="remove-part"
    onClick={(e) => {
      e.preventDefault()
      onRemove()
    }}
  >
    Remove
  </button>
)

const ReasoningView = ({ part, removable, onRemove }: { part: ViewPart; removable: boolean; onRemove: () => void }) => (
  <details class="part reasoning" data-part-id={part.id} data-part-type="reasoning">
    <summary>
      <span>{part.streaming ? "Thinking…" : "Reasoning"}</span>
      <span class="muted">{(part.text ?? "").length.toLocaleString()} characters</span>
      {removable && <RemoveButton onRemove={onRemove} />}
    </summary>
    <div class="text">{part.text}</div>
  </details>
)

const TextView = ({
  part,
  editable,
  onSave,
}: {
  part: ViewPart
  editable: boolean
  onSave: (text: string) => Promise<boolean>
}) => {
  const [draft, setDraft] = useState<string | undefined>(undefined)
  const [saving, setSaving] = useState(false)
  if (draft !== undefined) {
    const save = async () => {
      setSaving(true)
      const ok = await onSave(draft)
      setSaving(false)
      if (ok) setDraft(undefined)
    }
    return (
      <div class="part text editing" data-part-id={part.id} data-part-type="text">
        <textarea
          data-testid="edit-text"
          value={draft}
          rows={Math.min(20, Math.max(3, draft.split("\n").length + 1))}
          onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === "Escape") setDraft(undefined)
            if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) void save()
          }}
        />
        <div class="row">
          <button type="button" data-testid="save-text" disabled={saving} onClick={() => void save()}>
            Save correction
          </button>
          <button type="button" onClick={() => setDraft(undefined)}>
            Cancel
          </button>
        </div>
      </div>
    )
  }
  return (
    <div class={`part text${part.streaming ? " streaming" : ""}`} data-part-id={part.id} data-part-type="text">
      <div class="text" data-testid="text">
        {part.partial ? "… " : ""}
        {part.text}
      </div>
      {editable && (
        <button type="button" class="small edit" data-testid="edit" onClick={() => setDraft(part.text ?? "")}>
          Edit
        </button>
      )}
    </div>
  )
}

const LABEL: Record<string, string> = {
  user: "You",
  synthetic: "Notice",
  assistant: "Assistant",
  compaction: "Summary",
}

const MessageView = ({ message, actions }: { message: ViewMessage; actions: MessageActions }) => {
  const completed = message.type !== "assistant" || message.time.completed !== undefined
  const retracted = message.retracted !== undefined
  const canCorrect = !retracted && completed && ["user", "synthetic", "assistant"].includes(message.type)
  const canRetract = !retracted && (message.type === "user" || message.type === "synthetic")
  const canRemove = !retracted && message.type === "assistant" && completed
  const meta = [
    message.origin !== "user" && message.origin !== "host" ? message.origin : "",
    message.type === "assistant" ? [message.agent, modelName(message.model)].filter(Boolean).join(" · ") : "",
    message.description ?? "",
  ].filter(Boolean)
  return (
    <article
      class={`message ${message.type}${message.queued ? " queued" : ""}${retracted ? " retracted" : ""}`}
      data-message-id={message.id}
      data-type={message.type}
      data-testid="message"
    >
      <header>
        <span class="role">{LABEL[message.type] ?? message.type}</span>
        {meta.map((m) => (
          <span class="muted">{m}</span>
        ))}
        {message.queued && (
          <span class="badge queued" data-testid="queued">
            queued
          </span>
        )}
        {retracted && <span class="badge retracted">retracted</span>}
        {message.type === "assistant" && !completed && <span class="badge busy">streaming</span>}
        <time class="muted" title={stamp(message.time.created)}>
          {new Date(message.time.created).toLocaleTimeString()}
        </time>
        <span class="spacer" />
        {canRetract && (
          <button type="button" class="small danger" data-testid="retract" onClick={() => actions.retract(message)}>
            Retract
          </button>
        )}
      </header>
      {retracted && (
        <p class="placeholder" data-testid="placeholder">
          {message.placeholder ?? "(retracted)"}
        </p>
      )}
      {message.parts.map((part) =>
        part.type === "text" ? (
          <TextView
            key={part.id}
            part={part}
            editable={canCorrect && !part.streaming && !message.queued}
            onSave={(text) => actions.correct(message, part, text)}
          />
        ) : part.type === "reasoning" ? (
          <ReasoningView
            key={part.id}
            part={part}
            removable={canRemove && !part.streaming}
            onRemove={() => actions.removePart(message, part)}
          />
        ) : part.type === "tool" ? (
          <ToolView
            key={part.id}
            part={part}
            removable={canRemove}
            onRemove={() => actions.removePart(message, part)}
          />
        ) : (
          <div key={part.id} class="part unknown" data-part-id={part.id}>
            <pre>{json(part)}</pre>
          </div>
        ),
      )}
      {message.error && (
        <p class="message-error" data-testid="message-error">
          {message.error.name}: {message.error.message}
        </p>
      )}
      {message.type === "assistant" && message.usage && (
        <footer class="muted">
          {message.finish ? `${message.finish} · ` : ""}
          {message.usage.input.toLocaleString()} in / {message.usage.output.toLocaleString()} out tokens
        </footer>
      )}
    </article>
  )
}

/**
 * One transcript row. Re-renders only when its message object changes: live events replace just the
 * message they touch, so a long transcript costs nothing per streamed delta.
 */
export class MessageRow extends Component<{ message: ViewMessage; actions: MessageActions }> {
  override shouldComponentUpdate(next: { message: ViewMessage; actions: MessageActions }) {
    return next.message !== this.props.message || next.actions !== this.props.actions
  }
  override render() {
    return <MessageView message={this.props.message} actions={this.props.actions} />
  }
}
