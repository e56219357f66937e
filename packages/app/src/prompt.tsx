import { useEffect, useRef, useState } from "preact/hooks"
import { api } from "./api.ts"
import { complete, matchCommands, type Trigger, triggerAt } from "./completion.ts"
import { type Choices, loadChoices } from "./discovery.ts"

export interface PromptInput {
  readonly text: string
  readonly agent?: string
  readonly model?: string
}

/** The agent: a list from discovery when the server has one, else a free-text field. */
const AgentPicker = ({
  choices,
  value,
  onChange,
}: {
  choices: ReadonlyArray<string> | undefined
  value: string
  onChange: (value: string) => void
}) =>
  choices ? (
    <label class="picker">
      <span>agent</span>
      <select
        data-testid="agent-select"
        value={value}
        onChange={(e) => onChange((e.target as HTMLSelectElement).value)}
      >
        <option value="">default</option>
        {choices.map((choice) => (
          <option value={choice}>{choice}</option>
        ))}
      </select>
    </label>
  ) : (
    <label class="picker">
      <span>agent</span>
      <input
        data-testid="agent-input"
        value={value}
        placeholder="default"
        onInput={(e) => onChange((e.target as HTMLInputElement).value)}
      />
    </label>
  )

const OTHER = "\u0000other"

/**
 * The model: the discovered models grouped by provider, the providers missing their key listed (disabled)
 * with the variable that would supply it, and "other…" for a model id typed by hand (a provider may
 * accept any).
 */
const ModelPicker = ({
  choices,
  value,
  onChange,
}: {
  choices: Choices
  value: string
  onChange: (value: string) => void
}) => {
  const models = choices.models ?? []
  const [typing, setTyping] = useState(false)
  const free = typing || (value !== "" && !models.includes(value))
  const providers = [...new Set(models.map((m) => m.slice(0, m.indexOf("/"))))]
  return (
    <label class="picker">
      <span>model</span>
      <select
        data-testid="model-select"
        value={free ? OTHER : value}
        onChange={(e) => {
          const chosen = (e.target as HTMLSelectElement).value
          setTyping(chosen === OTHER)
          onChange(chosen === OTHER ? "" : chosen)
        }}
      >
        <option value="">default{choices.defaultModel ? ` (${choices.defaultModel})` : ""}</option>
        {providers.map((provider) => (
          <optgroup label={provider}>
            {models
              .filter((m) => m.startsWith(`${provider}/`))
              .map((m) => (
                <option value={m}>{m.slice(provider.length + 1)}</option>
              ))}
          </optgroup>
        ))}
        {choices.missing && choices.missing.length > 0 && (
          <optgroup label="needs a key" data-testid="missing-keys">
            {choices.missing.map((p) => (
              <option disabled value={`${p.id}/`} data-testid="missing-provider">
                {p.id}: set {p.variable}
              </option>
            ))}
          </optgroup>
        )}
        <option value={OTHER}>other…</option>
      </select>
      {free && (
        <input
          data-testid="model-input"
          value={value}
          placeholder="provider/model"
          onInput={(e) => onChange((e.target as HTMLInputElement).value)}
        />
      )}
    </label>
  )
}

/**
 * The prompt box: Enter sends, Shift+Enter makes a new line (and so does Enter while an input method is
 * composing). Sending while a turn runs is allowed: the server queues the prompt behind the turn.
 */
interface Suggestion {
  readonly value: string
  readonly detail?: string
}

/**
 * The suggestions for the token at the caret: commands from the session directory's command list, files
 * from the server's file search (confined to the session directory). Stale answers are dropped.
 */
const useSuggestions = (directory: string, trigger: Trigger | undefined) => {
  const [suggestions, setSuggestions] = useState<ReadonlyArray<Suggestion>>([])
  const commands = useRef<Promise<ReadonlyArray<{ name: string; description?: string }>> | undefined>(undefined)
  const kind = trigger?.kind
  const query = trigger?.query
  useEffect(() => {
    if (kind === undefined || query === undefined) {
      setSuggestions([])
      return
    }
    let current = true
    const found: Promise<ReadonlyArray<Suggestion>> =
      kind === "command"
        ? (commands.current ??= api.commands(directory).catch(() => {
            commands.current = undefined
            return []
          })).then((list) =>
            matchCommands(list, query)
              .slice(0, 12)
              .map((c) => ({ value: c.name, ...(c.description ? { detail: c.description } : {}) })),
          )
        : api.findFiles(directory, query, 12).then(
            (files) => files.map((f) => ({ value: f.path })),
            () => [],
          )
    void found.then((list) => current && setSuggestions(list))
    return () => {
      current = false
    }
  }, [directory, kind, query])
  return suggestions
}

/**
 * The prompt box: Enter sends, Shift+Enter makes a new line (and so does Enter while an input method is
 * composing). Sending while a turn runs is allowed: the server queues the prompt behind the turn. `/` at
 * the start completes a command, `@` a file of the session directory (arrows to move, Enter or Tab to take
 * one, Escape to close the list).
 */
export const PromptBox = ({
  busy,
  disabled,
  directory,
  onSend,
  onInterrupt,
}: {
  busy: boolean
  disabled: boolean
  /** The session's directory: what `/commands` and `@files` are looked up in. */
  directory: string
  onSend: (input: PromptInput) => Promise<boolean>
  onInterrupt: () => void
}) => {
  const [text, setText] = useState("")
  const [caret, setCaret] = useState(0)
  const [agent, setAgent] = useState("")
  const [model, setModel] = useState("")
  const [sending, setSending] = useState(false)
  const [choices, setChoices] = useState<Choices>({ agents: undefined, models: undefined })
  const [selected, setSelected] = useState(0)
  const [closed, setClosed] = useState<string | undefined>(undefined)
  const area = useRef<HTMLTextAreaElement>(null)
  useEffect(() => {
    let live = true
    void loadChoices().then((c) => live && setChoices(c))
    return () => {
      live = false
    }
  }, [])
  const trigger = triggerAt(text, caret)
  const triggerKey = trigger ? `${trigger.kind}:${trigger.start}:${trigger.query}` : undefined
  const suggestions = useSuggestions(directory, trigger)
  const open = trigger !== undefined && suggestions.length > 0 && closed !== triggerKey
  useEffect(() => setSelected(0), [triggerKey])
  const track = (element: HTMLTextAreaElement) => setCaret(element.selectionStart ?? element.value.length)
  const accept = (value: string) => {
    if (!trigger) return
    const next = complete(text, trigger, value)
    setText(next.text)
    setCaret(next.caret)
    requestAnimationFrame(() => {
      const element = area.current
      if (!element) return
      element.focus()
      element.setSelectionRange(next.caret, next.caret)
    })
  }
  const submit = async () => {
    if (!text.trim() || sending || disabled) return
    setSending(true)
    const ok = await onSend({
      text,
      ...(agent.trim() ? { agent: agent.trim() } : {}),
      ...(model.trim() ? { model: model.trim() } : {}),
    })
    setSending(false)
    if (ok) setText("")
  }
  return (
    <form
      class="prompt"
      onSubmit={(e) => {
        e.preventDefault()
        void submit()
      }}
    >
      {open && (
        <ul class="completions" role="listbox" data-testid="completions" data-kind={trigger.kind}>
          {suggestions.map((s, i) => (
            <li
              role="option"
              aria-selected={i === selected}
              class={i === selected ? "selected" : ""}
              data-testid="completion"
              data-value={s.value}
              onMouseDown={(e) => {
                e.preventDefault()
                accept(s.value)
              }}
            >
              <span class="completion-value">
                {trigger.kind === "command" ? "/" : "@"}
                {s.value}
              </span>
              {s.detail && <span class="muted completion-detail">{s.detail}</span>}
            </li>
          ))}
        </ul>
      )}
      <textarea
        ref={area}
        data-testid="prompt"
        value={text}
        rows={Math.min(10, Math.max(2, text.split("\n").length))}
        placeholder={
          busy
            ? "A turn is running; what you send now is queued"
            : "Message: / for commands, @ for files (Enter to send, Shift+Enter for a new line)"
        }
        disabled={disabled}
        onInput={(e) => {
          const element = e.target as HTMLTextAreaElement
          setText(element.value)
          track(element)
        }}
        onKeyUp={(e) => {
          if (["ArrowLeft", "ArrowRight", "Home", "End"].includes(e.key)) track(e.target as HTMLTextAreaElement)
        }}
        onClick={(e) => track(e.target as HTMLTextAreaElement)}
        onKeyDown={(e) => {
          if (open) {
            if (e.key === "ArrowDown" || e.key === "ArrowUp") {
              e.preventDefault()
              const step = e.key === "ArrowDown" ? 1 : -1
              setSelected((i) => (i + step + suggestions.length) % suggestions.length)
              return
            }
            if ((e.key === "Enter" || e.key === "Tab") && !e.shiftKey && !e.isComposing) {
              e.preventDefault()
              accept(suggestions[Math.min(selected, suggestions.length - 1)]!.value)
              return
            }
            if (e.key === "Escape") {
              e.preventDefault()
              setClosed(triggerKey)
              return
            }
          }
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
            e.preventDefault()
            void submit()
          }
        }}
      />
      <div class="prompt-bar">
        <AgentPicker choices={choices.agents} value={agent} onChange={setAgent} />
        <ModelPicker choices={choices} value={model} onChange={setModel} />
        <span class="spacer" />
        <button type="button" class="danger" data-testid="interrupt" disabled={!busy} onClick={onInterrupt}>
          Interrupt
        </button>
        <button type="submit" class="primary" data-testid="send" disabled={sending || disabled || !text.trim()}>
          {busy ? "Queue" : "Send"}
        </button>
      </div>
    </form>
  )
}
