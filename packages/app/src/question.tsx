import { useState } from "preact/hooks"
import type { Question } from "./types.ts"

/**
 * A pending question of the `question` tool: each question with its options (radio buttons, or checkboxes
 * where several may be chosen) and a field for an answer of one's own; Answer sends them all, Dismiss
 * refuses (the tool call fails and the model carries on).
 */
export const QuestionCard = ({
  question,
  onAnswer,
  onDismiss,
}: {
  question: Question
  onAnswer: (answers: Array<Array<string>>) => Promise<void>
  onDismiss: () => Promise<void>
}) => {
  const [chosen, setChosen] = useState<Array<Array<string>>>(() => question.questions.map(() => []))
  const [typed, setTyped] = useState<Array<string>>(() => question.questions.map(() => ""))
  const [sending, setSending] = useState(false)
  const answers = question.questions.map((_, i) => (typed[i]!.trim() ? [typed[i]!.trim()] : chosen[i]!))
  const complete = answers.every((answer) => answer.length > 0)
  const toggle = (index: number, label: string, multiple: boolean) =>
    setChosen((current) =>
      current.map((labels, i) =>
        i !== index
          ? labels
          : multiple
            ? labels.includes(label)
              ? labels.filter((l) => l !== label)
              : [...labels, label]
            : [label],
      ),
    )
  const send = async (action: () => Promise<void>) => {
    setSending(true)
    await action()
    setSending(false)
  }
  return (
    <section class="permission question" data-testid="question" data-question-id={question.id}>
      <header>
        <span class="badge ask">question</span>
        <strong data-testid="question-label">
          The agent asks {question.questions.length === 1 ? "a question" : `${question.questions.length} questions`}
        </strong>
      </header>
      {question.questions.map((q, index) => (
        <fieldset data-testid="question-item">
          <legend>
            <strong>{q.header}</strong> {q.question}
          </legend>
          {q.options.map((option) => (
            <label class="option">
              <input
                type={q.multiple ? "checkbox" : "radio"}
                name={`${question.id}-${index}`}
                checked={chosen[index]!.includes(option.label)}
                onChange={() => toggle(index, option.label, q.multiple === true)}
              />
              <span>{option.label}</span>
              {option.description && <span class="muted"> {option.description}</span>}
            </label>
          ))}
          {q.custom !== false && (
            <input
              value={typed[index]}
              placeholder="Or type your own answer"
              onInput={(e) => {
                const value = (e.target as HTMLInputElement).value
                setTyped((current) => current.map((t, i) => (i === index ? value : t)))
              }}
            />
          )}
        </fieldset>
      ))}
      <div class="row">
        <button
          type="button"
          class="primary"
          disabled={sending || !complete}
          data-testid="answer"
          onClick={() => void send(() => onAnswer(answers))}
        >
          Answer
        </button>
        <button
          type="button"
          class="danger"
          disabled={sending}
          data-testid="dismiss"
          onClick={() => void send(onDismiss)}
        >
          Dismiss
        </button>
      </div>
    </section>
  )
}
