import { Component } from "preact"
import { useState } from "preact/hooks"
import { json, modelName, stamp } from "./format.ts"
import { Markdown } from "./markdown/markdown.tsx"
import { ToolIcon } from "./tool-icon.tsx"
import type { LiveText } from "./transcript.ts"
import type { AssistantMessage, ReasoningItem, SessionMessage, TextItem, ToolItem } from "./types.ts"

/** What a message row can ask for; the session view runs it (with busy retry and error display). */
export interface MessageActions {
  /** Corrects a message's own text (`itemID` undefined) or an assistant text item. */
  correct(message: SessionMessage, itemID: string | undefined, text: string): Promise<boolean>
  retract(message: SessionMessage): void
  /** Stages a revert to just after this message (later messages hidden, their file changes undone). */
  revertTo(message: SessionMessage): void
  /** Forks the session at this message into a new one (this session untouched) and opens it. */
  forkFrom(message: SessionMessage): void
  /** Takes a tool call (pruned) or a reasoning item out of a finished assistant message. */
  removeItem(message: SessionMessage, itemID: string, kind: "tool" | "reasoning"): void
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

/** A one-line summary of a call's arguments (its path, command or pattern). */
export const inputSummary = (input: unknown) => {
  if (!input || typeof input !== "object") return typeof input === "string" ? input : ""
  const record = input as Record<string, unknown>
  const first = record.path ?? record.filePath ?? record.command ?? record.pattern ?? Object.values(record)[0]
  const text = typeof first === "string" ? first : ""
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}

/** A pending call's input is the JSON streamed so far; later states hold it parsed. */
const toolInput = (item: ToolItem): unknown => {
  if (item.state.status !== "pending") return item.state.input
  try {
    return JSON.parse(item.state.input || "{}")
  } catch {
    return item.state.input
  }
}

const toolOutput = (item: ToolItem): string | undefined => {
  if (item.state.status === "pending") return undefined
  const texts = item.state.content.flatMap((c) => (c.type === "text" ? [c.text] : []))
  return texts.length > 0 ? texts.join("\n") : undefined
}

const toolDiff = (item: ToolItem): string | undefined => {
  if (item.state.status === "pending") return undefined
  const diff = item.state.structured.diff
  return typeof diff === "string" ? diff : undefined
}

interface ShownDiagnostics {
  readonly path: string
  readonly server?: string
  readonly note?: string
  readonly diagnostics: ReadonlyArray<{ line: number; column: number; severity: string; message: string }>
}

/** What the language servers reported after an edit (`metadata.diagnostics`, docs/lsp.md). */
const toolDiagnostics = (item: ToolItem): ReadonlyArray<ShownDiagnostics> => {
  if (item.state.status === "pending") return []
  const found = item.state.structured.diagnostics
  return Array.isArray(found) ? (found as ReadonlyArray<ShownDiagnostics>) : []
}

const Diagnostics = ({ files }: { files: ReadonlyArray<ShownDiagnostics> }) => (
  <div class="io diagnostics" data-testid="diagnostics">
    <div class="io-label">Diagnostics</div>
    <pre>
      {files
        .flatMap((file) => [
          ...file.diagnostics.map((d) => `${file.path}:${d.line}:${d.column} ${d.severity}: ${d.message}`),
          ...(file.note ? [`${file.path}: ${file.note}`] : []),
        ])
        .join("\n")}
    </pre>
  </div>
)

/** The child session a `task` call started (named on the call as soon as it exists). */
const childSession = (item: ToolItem): string | undefined => {
  if (item.name !== "task" || item.state.status === "pending") return undefined
  const id = item.state.structured.sessionID
  return typeof id === "string" && /^ses_[0-9A-Za-z]+$/.test(id) ? id : undefined
}

/** Where something left the transcript: the item's place stays visible, its content does not. */
const Removed = ({ itemID, label }: { itemID: string; label: string }) => (
  <div class="part removed" data-item-id={itemID} data-testid="removed">
    <span class="badge removed">removed</span>
    <span class="muted">{label}</span>
  </div>
)

/** How long a call ran (from its start to its result), or undefined while it runs. */
export const duration = (item: ToolItem): string | undefined => {
  const time = item.time as { created?: number; ran?: number; completed?: number }
  if (time.completed === undefined) return undefined
  const ms = time.completed - (time.ran ?? time.created ?? time.completed)
  return ms < 1000
    ? `${Math.max(0, ms)} ms`
    : ms < 60_000
      ? `${(ms / 1000).toFixed(1)} s`
      : `${Math.round(ms / 60_000)} min`
}

/** The `question` tool's questions, as the person read them (its card shows them while pending). */
const questionsOf = (input: unknown): Array<string> => {
  const list = (input as { questions?: unknown } | null)?.questions
  return Array.isArray(list)
    ? list.flatMap((q) =>
        q && typeof (q as { question?: unknown }).question === "string" ? [(q as { question: string }).question] : [],
      )
    : []
}

/**
 * A tool call as one compact row (icon, name, title, status, duration), collapsed; expanded it shows the
 * input, the diff and the output. A question's row names the question, never its raw JSON input.
 */
const ToolView = ({ item, removable, onRemove }: { item: ToolItem; removable: boolean; onRemove: () => void }) => {
  const diff = toolDiff(item)
  const status = item.state.status
  const input = toolInput(item)
  const output = toolOutput(item)
  const child = childSession(item)
  const question = item.name === "question"
  const asked = question ? questionsOf(input) : []
  const took = duration(item)
  const diagnostics = toolDiagnostics(item).filter((f) => f.diagnostics.length > 0 || f.note)
  return (
    <details class={`part tool state-${status}`} data-item-id={item.id} data-item-type="tool" data-tool={item.name}>
      <summary>
        <ToolIcon name={item.name} />
        <span class="tool-name">{question ? "question" : item.name}</span>
        <span class="tool-title" data-testid="tool-title">
          {question ? (asked[0] ?? "a question for you") : (item.title ?? inputSummary(input))}
        </span>
        <span class={`badge state-${status}`} data-testid="tool-status">
          {question && (status === "running" || status === "pending") ? "awaiting answer" : status}
        </span>
        {took !== undefined && (
          <span class="tool-time muted" data-testid="tool-duration">
            {took}
          </span>
        )}
        {removable && <RemoveButton onRemove={onRemove} />}
      </summary>
      {question ? (
        <div class="io">
          <div class="io-label">Asked</div>
          <ul class="asked">
            {asked.map((q) => (
              <li>{q}</li>
            ))}
          </ul>
        </div>
      ) : (
        <div class="io">
          <div class="io-label">Input</div>
          <pre>{json(input)}</pre>
        </div>
      )}
      {diff !== undefined && <Diff diff={diff} />}
      {diagnostics.length > 0 && <Diagnostics files={diagnostics} />}
      {child !== undefined && (
        // A `task` call runs a subagent in a child session: it is reachable from the call that started it.
        <div class="io subagent" data-testid="subagent-session">
          <div class="io-label">Subagent session</div>
          <a href={`/session/${child}`} data-testid="subagent-link" data-session-id={child}>
            {typeof input === "object" && input !== null && "subagent_type" in input
              ? `@${String((input as { subagent_type: unknown }).subagent_type)}`
              : "subagent"}{" "}
            · {child}
          </a>
        </div>
      )}
      {output !== undefined && <Long label={question ? "Answer" : "Output"} text={output} />}
      {item.state.status === "error" && (
        <div class="io error">
          <div class="io-label">Error</div>
          <pre>{item.state.error.message}</pre>
        </div>
      )}
    </details>
  )
}

/** Removes a tool or reasoning item; inside a `<summary>`, so the click must not also toggle it. */
const RemoveButton = ({ onRemove }: { onRemove: () => void }) => (
  <button
    type="button"
    class="small danger"
    data-testid="remove-item"
    onClick={(e) => {
      e.preventDefault()
      onRemove()
    }}
  >
    Remove
  </button>
)

const ReasoningView = ({
  item,
  live,
  removable,
  onRemove,
}: {
  item: ReasoningItem
  live: LiveText | undefined
  removable: boolean
  onRemove: () => void
}) => {
  const text = live ? `${item.text}${live.gap ? " … " : ""}${live.tail}` : item.text
  return (
    <details class="part reasoning" data-item-id={item.id} data-item-type="reasoning">
      <summary>
        <span>{live ? "Thinking…" : "Reasoning"}</span>
        <span class="muted">{text.length.toLocaleString()} characters</span>
        {removable && <RemoveButton onRemove={onRemove} />}
      </summary>
      <div class="text">
        <Markdown text={text} />
      </div>
    </details>
  )
}

/** Corrected after it was written: when, and by whom. */
const Edited = ({ change }: { change: { time: number; by: string } }) => (
  <span class="badge edited" data-testid="edited" title={`edited by ${change.by}, ${stamp(change.time)}`}>
    edited
  </span>
)

const TextView = ({
  itemID,
  text,
  live,
  corrected,
  editable,
  onSave,
}: {
  itemID: string | undefined
  text: string
  live: LiveText | undefined
  corrected: { time: number; by: string } | undefined
  editable: boolean
  onSave: (text: string) => Promise<boolean>
}) => {
  const [draft, setDraft] = useState<string | undefined>(undefined)
  const [saving, setSaving] = useState(false)
  const attributes = { "data-item-type": "text", ...(itemID ? { "data-item-id": itemID } : {}) }
  if (draft !== undefined) {
    const save = async () => {
      setSaving(true)
      const ok = await onSave(draft)
      setSaving(false)
      if (ok) setDraft(undefined)
    }
    return (
      <div class="part text editing" {...attributes}>
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
    <div class={`part text${live ? " streaming" : ""}`} {...attributes}>
      <div class="text" data-testid="text">
        <Markdown text={live ? `${text}${live.gap ? " … " : ""}${live.tail}` : text} />
      </div>
      {corrected && <Edited change={corrected} />}
      {editable && (
        <button type="button" class="small edit" data-testid="edit" onClick={() => setDraft(text)}>
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
  system: "System",
  shell: "Shell",
}

/** What a turn still running is doing, for the unfinished assistant message. */
const PROGRESS: Record<string, string> = {
  waiting: "waiting for permission",
  // The session waits the same way for a question's answer; the view tells the two apart.
  question: "waiting for your answer",
  retrying: "retrying",
  suspended: "suspended",
}

interface RowProps {
  readonly message: SessionMessage
  /** Streaming text of this message's items, by item id. */
  readonly live: ReadonlyMap<string, LiveText> | undefined
  /** The session's status (what an unfinished assistant message says it is doing). */
  readonly status: string
  readonly actions: MessageActions
}

const AssistantContent = ({
  message,
  live,
  actions,
}: {
  message: AssistantMessage
  live: ReadonlyMap<string, LiveText> | undefined
  actions: MessageActions
}) => {
  const completed = message.time.completed !== undefined
  const removed = message.removed ?? []
  return (
    <>
      {message.content.map((item) =>
        item.type === "text" ? (
          <TextView
            key={item.id}
            itemID={item.id}
            text={(item as TextItem).text}
            live={live?.get(item.id)}
            corrected={item.corrected}
            editable={completed}
            onSave={(text) => actions.correct(message, item.id, text)}
          />
        ) : item.type === "reasoning" ? (
          <ReasoningView
            key={item.id}
            item={item}
            live={live?.get(item.id)}
            removable={completed}
            onRemove={() => actions.removeItem(message, item.id, "reasoning")}
          />
        ) : item.type === "tool" && item.time.pruned !== undefined ? (
          <Removed key={item.id} itemID={item.id} label={`${item.name} call`} />
        ) : item.type === "tool" ? (
          <ToolView
            key={item.id}
            item={item}
            removable={completed}
            onRemove={() => actions.removeItem(message, item.id, "tool")}
          />
        ) : (
          <div key={(item as { id: string }).id} class="part unknown">
            <pre>{json(item)}</pre>
          </div>
        ),
      )}
      {removed.map((id) => (
        <Removed key={id} itemID={id} label="reasoning" />
      ))}
      {completed && message.content.length === 0 && removed.length === 0 && !message.error && (
        <p class="muted" data-testid="no-content">
          (no content)
        </p>
      )}
    </>
  )
}

const MessageView = ({ message, live, status, actions }: RowProps) => {
  const queued = (message as { queued?: boolean }).queued === true
  const retracted = message.retracted !== undefined
  const assistant = message.type === "assistant" ? message : undefined
  const completed = !assistant || assistant.time.completed !== undefined
  const canRetract = !retracted && (message.type === "user" || message.type === "synthetic")
  const ownText =
    message.type === "user" || message.type === "synthetic" || message.type === "system"
      ? message.text
      : message.type === "compaction"
        ? message.summary
        : undefined
  const canCorrectOwn = !retracted && !queued && ["user", "synthetic", "compaction"].includes(message.type)
  const meta = [
    message.origin !== "user" && message.origin !== "host" ? message.origin : "",
    assistant ? [assistant.agent, modelName(assistant.model)].filter(Boolean).join(" · ") : "",
    message.type === "synthetic" ? (message.description ?? "") : "",
  ].filter(Boolean)
  if (message.type === "agent-switched" || message.type === "model-switched") {
    return (
      <div class="message switched" data-message-id={message.id} data-type={message.type} data-testid="message">
        <span class="muted">
          {message.type === "agent-switched"
            ? `Agent switched to ${message.agent}`
            : `Model switched to ${modelName(message.model)}`}
        </span>
      </div>
    )
  }
  return (
    <article
      class={`message ${message.type}${queued ? " queued" : ""}${retracted ? " retracted" : ""}`}
      data-message-id={message.id}
      data-type={message.type}
      data-testid="message"
    >
      <header>
        <span class="role">{LABEL[message.type] ?? message.type}</span>
        {meta.map((m) => (
          <span class="muted">{m}</span>
        ))}
        {queued && (
          <span class="badge queued" data-testid="queued">
            queued
          </span>
        )}
        {retracted && (
          <span class="badge retracted" data-testid="retracted">
            retracted
          </span>
        )}
        {!completed && (
          <span class={`badge busy progress-${status}`} data-testid="progress">
            {PROGRESS[status] ?? "streaming"}
          </span>
        )}
        <time class="muted" title={stamp(message.time.created)}>
          {new Date(message.time.created).toLocaleTimeString()}
        </time>
        <span class="spacer" />
        <span class="message-actions">
          {canRetract && (
            <button type="button" class="small danger" data-testid="retract" onClick={() => actions.retract(message)}>
              Retract
            </button>
          )}
          {!queued && completed && (
            <button
              type="button"
              class="small"
              data-testid="revert-to"
              title="Hide the later messages and undo the file changes made after this message"
              onClick={() => actions.revertTo(message)}
            >
              Revert to here
            </button>
          )}
          {!queued && completed && (
            <button
              type="button"
              class="small"
              data-testid="fork-from"
              title="Open a new session holding this conversation up to and including this message"
              onClick={() => actions.forkFrom(message)}
            >
              Fork from here
            </button>
          )}
        </span>
      </header>
      {retracted ? (
        <p class="placeholder" data-testid="placeholder">
          {message.placeholder ?? "(retracted)"}
        </p>
      ) : (
        ownText !== undefined && (
          <TextView
            itemID={undefined}
            text={ownText}
            live={undefined}
            corrected={message.corrected}
            editable={canCorrectOwn}
            onSave={(text) => actions.correct(message, undefined, text)}
          />
        )
      )}
      {message.type === "shell" && (
        <>
          <div class="io">
            <div class="io-label">Command</div>
            <pre>{message.command}</pre>
          </div>
          <Long label="Output" text={message.output} />
        </>
      )}
      {assistant && <AssistantContent message={assistant} live={live} actions={actions} />}
      {!["user", "synthetic", "system", "compaction", "shell", "assistant"].includes(message.type) && (
        <pre class="part unknown">{json(message)}</pre>
      )}
      {assistant?.error && (
        <p class="message-error" data-testid="message-error">
          {assistant.error.name ?? "Error"}: {assistant.error.message}
        </p>
      )}
      {assistant?.tokens && (
        <footer class="muted">
          {assistant.finish ? `${assistant.finish} · ` : ""}
          {assistant.tokens.input.toLocaleString()} in / {assistant.tokens.output.toLocaleString()} out tokens
        </footer>
      )}
    </article>
  )
}

/**
 * One transcript row. Re-renders only when its own message (or its streaming text) changes: live events
 * replace just the message they touch, so a long transcript costs nothing per streamed delta.
 */
export class MessageRow extends Component<RowProps> {
  override shouldComponentUpdate(next: RowProps) {
    const unfinished = next.message.type === "assistant" && next.message.time.completed === undefined
    return (
      next.message !== this.props.message ||
      next.live !== this.props.live ||
      next.actions !== this.props.actions ||
      (unfinished && next.status !== this.props.status)
    )
  }
  override render() {
    return <MessageView {...this.props} />
  }
}
