import { useState } from "preact/hooks"
import { Diff } from "./message.tsx"
import { changedFiles, fileChanges } from "./review.ts"
import type { SessionMessage } from "./types.ts"

const excerpt = (text: string) => (text.length > 60 ? `${text.slice(0, 57)}…` : text)

/**
 * The review panel: the files the session's tool calls changed, each with its diffs, all of them or only
 * those made answering one prompt. It reads the messages the view holds (older ones load with the
 * transcript's "Show earlier messages").
 */
export const ReviewPanel = ({ messages }: { messages: ReadonlyArray<SessionMessage> }) => {
  const [prompt, setPrompt] = useState("")
  const all = fileChanges(messages)
  const prompts = messages.filter(
    (m): m is Extract<SessionMessage, { type: "user" }> => m.type === "user" && all.some((c) => c.promptID === m.id),
  )
  const files = changedFiles(prompt ? all.filter((c) => c.promptID === prompt) : all)
  return (
    <section class="review" data-testid="review">
      <div class="row review-head">
        <strong>
          {files.length} file{files.length === 1 ? "" : "s"} changed
        </strong>
        <span class="spacer" />
        <label class="picker">
          <span>by</span>
          <select
            data-testid="review-filter"
            value={prompt}
            onChange={(e) => setPrompt((e.target as HTMLSelectElement).value)}
          >
            <option value="">every message</option>
            {prompts.map((m) => (
              <option value={m.id}>{excerpt(m.text)}</option>
            ))}
          </select>
        </label>
      </div>
      {files.length === 0 && <p class="muted empty">No file changes in the loaded messages.</p>}
      {files.map((file) => (
        <details class="review-file" data-testid="review-file" data-path={file.path} open>
          <summary>
            <code class="review-path">{file.path}</code>
            <span class="review-stat add">+{file.additions}</span>
            <span class="review-stat del">-{file.deletions}</span>
          </summary>
          {file.changes.map((change) => (
            <div data-item-id={change.itemID}>
              <Diff diff={change.diff} />
            </div>
          ))}
        </details>
      ))}
    </section>
  )
}
