import { useEffect, useState } from "preact/hooks"
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

/**
 * The model: always typeable (a provider may accept any model id), with the discovered `provider/model`
 * names offered as suggestions.
 */
const ModelPicker = ({
  choices,
  fallback,
  value,
  onChange,
}: {
  choices: ReadonlyArray<string> | undefined
  fallback: string | undefined
  value: string
  onChange: (value: string) => void
}) => (
  <label class="picker">
    <span>model</span>
    <input
      data-testid="model-input"
      list={choices ? "opencode2-models" : undefined}
      value={value}
      placeholder={fallback ? `default (${fallback})` : "provider/model"}
      onInput={(e) => onChange((e.target as HTMLInputElement).value)}
    />
    {choices && (
      <datalist id="opencode2-models">
        {choices.map((choice) => (
          <option value={choice} />
        ))}
      </datalist>
    )}
  </label>
)

/**
 * The prompt box: Enter sends, Shift+Enter makes a new line (and so does Enter while an input method is
 * composing). Sending while a turn runs is allowed: the server queues the prompt behind the turn.
 */
export const PromptBox = ({
  busy,
  disabled,
  onSend,
  onInterrupt,
}: {
  busy: boolean
  disabled: boolean
  onSend: (input: PromptInput) => Promise<boolean>
  onInterrupt: () => void
}) => {
  const [text, setText] = useState("")
  const [agent, setAgent] = useState("")
  const [model, setModel] = useState("")
  const [sending, setSending] = useState(false)
  const [choices, setChoices] = useState<Choices>({ agents: undefined, models: undefined })
  useEffect(() => {
    let live = true
    void loadChoices().then((c) => live && setChoices(c))
    return () => {
      live = false
    }
  }, [])
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
      <textarea
        data-testid="prompt"
        value={text}
        rows={Math.min(10, Math.max(2, text.split("\n").length))}
        placeholder={
          busy
            ? "A turn is running; what you send now is queued"
            : "Message (Enter to send, Shift+Enter for a new line)"
        }
        disabled={disabled}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
            e.preventDefault()
            void submit()
          }
        }}
      />
      <div class="prompt-bar">
        <AgentPicker choices={choices.agents} value={agent} onChange={setAgent} />
        <ModelPicker choices={choices.models} fallback={choices.defaultModel} value={model} onChange={setModel} />
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
