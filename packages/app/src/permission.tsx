import { useState } from "preact/hooks"
import { json } from "./format.ts"
import { Diff, inputSummary } from "./message.tsx"
import type { Permission, PermissionReply } from "./types.ts"

/**
 * A pending permission request: what the tool wants to do (the action, the resources it matched, the diff
 * for edits, the call's input), answered once, always (for this session, its `save` patterns) or rejected,
 * optionally with a message for the model.
 */
export const PermissionCard = ({
  permission,
  onReply,
}: {
  permission: Permission
  onReply: (reply: PermissionReply, message: string) => Promise<void>
}) => {
  const [message, setMessage] = useState("")
  const [sending, setSending] = useState(false)
  const diff = typeof permission.metadata?.diff === "string" ? permission.metadata.diff : undefined
  const input = permission.metadata?.input
  const reply = async (choice: PermissionReply) => {
    setSending(true)
    await onReply(choice, message)
    setSending(false)
  }
  return (
    <section class="permission" data-testid="permission" data-permission-id={permission.id}>
      <header>
        <span class="badge ask">permission</span>
        <strong data-testid="permission-action">{permission.action}</strong>
        {permission.tool && permission.tool !== permission.action && <span class="tool-name">{permission.tool}</span>}
        <span>{permission.title ?? inputSummary(input)}</span>
      </header>
      {permission.resources.length > 0 && (
        <ul class="patterns" data-testid="permission-resources">
          {permission.resources.map((resource) => (
            <li>
              <code>{resource}</code>
            </li>
          ))}
        </ul>
      )}
      {diff !== undefined && <Diff diff={diff} />}
      {diff === undefined && input !== undefined && (
        <details class="io">
          <summary class="io-label">Input</summary>
          <pre>{json(input)}</pre>
        </details>
      )}
      <input
        value={message}
        placeholder="Optional message for the model (with Reject, the turn continues with it)"
        onInput={(e) => setMessage((e.target as HTMLInputElement).value)}
      />
      <div class="row">
        <button
          type="button"
          class="primary"
          disabled={sending}
          data-testid="allow-once"
          onClick={() => void reply("once")}
        >
          Allow once
        </button>
        <button type="button" disabled={sending} data-testid="allow-always" onClick={() => void reply("always")}>
          Always allow
        </button>
        <button
          type="button"
          class="danger"
          disabled={sending}
          data-testid="reject"
          onClick={() => void reply("reject")}
        >
          Reject
        </button>
      </div>
    </section>
  )
}
