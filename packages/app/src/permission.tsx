import { useState } from "preact/hooks"
import { Diff } from "./message.tsx"
import type { Permission, PermissionReply } from "./types.ts"

/**
 * A pending permission ask: what the tool wants to do (patterns, and the diff for edits), answered once,
 * always (for this session, these patterns) or rejected, optionally with a message for the model.
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
  const reply = async (choice: PermissionReply) => {
    setSending(true)
    await onReply(choice, message)
    setSending(false)
  }
  return (
    <section class="permission" data-testid="permission" data-permission-id={permission.id}>
      <header>
        <span class="badge ask">permission</span>
        <strong>{permission.tool}</strong>
        <span>{permission.title}</span>
      </header>
      {permission.patterns.length > 0 && (
        <ul class="patterns">
          {permission.patterns.map((pattern) => (
            <li>
              <code>{pattern}</code>
            </li>
          ))}
        </ul>
      )}
      {diff !== undefined && <Diff diff={diff} />}
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
