import { useEffect, useMemo, useState } from "preact/hooks"
import { type Actions, useActions } from "./actions.ts"
import { api, STATS_INTERVAL_MS } from "./api.ts"
import { useConfirm } from "./confirm.tsx"
import { ago, bytes, stamp } from "./format.ts"
import { LiveSessions } from "./live.ts"
import { Notice } from "./notice.tsx"
import { navigate } from "./router.ts"
import { StatusBadge } from "./session.tsx"
import { throttle } from "./throttle.ts"
import type { SessionInfo } from "./types.ts"

const CreateForm = ({ actions }: { actions: Actions }) => {
  const [title, setTitle] = useState("")
  const [directory, setDirectory] = useState("")
  const [creating, setCreating] = useState(false)
  return (
    <form
      class="create row"
      onSubmit={async (e) => {
        e.preventDefault()
        setCreating(true)
        const session = await actions.run("creating the session", () =>
          api.create({
            ...(title.trim() ? { title: title.trim() } : {}),
            ...(directory.trim() ? { directory: directory.trim() } : {}),
          }),
        )
        setCreating(false)
        if (session) navigate(`/session/${session.id}`)
      }}
    >
      <input
        data-testid="new-title"
        value={title}
        placeholder="Title (optional)"
        onInput={(e) => setTitle((e.target as HTMLInputElement).value)}
      />
      <input
        data-testid="new-directory"
        value={directory}
        placeholder="Directory (default: the server's)"
        onInput={(e) => setDirectory((e.target as HTMLInputElement).value)}
      />
      <button type="submit" class="primary" data-testid="create" disabled={creating}>
        New session
      </button>
    </form>
  )
}

const Row = ({
  session,
  size,
  onRename,
  onDelete,
}: {
  session: SessionInfo
  size: number | undefined
  onRename: (title: string) => Promise<boolean>
  onDelete: () => void
}) => {
  const [draft, setDraft] = useState<string | undefined>(undefined)
  return (
    <tr data-session-id={session.id} data-testid="session-row">
      <td class="title-cell">
        {draft === undefined ? (
          <a href={`/session/${session.id}`} data-testid="session-link">
            {session.title || "(untitled)"}
          </a>
        ) : (
          <form
            class="row"
            onSubmit={async (e) => {
              e.preventDefault()
              if (await onRename(draft)) setDraft(undefined)
            }}
          >
            <input
              data-testid="rename-input"
              value={draft}
              onInput={(e) => setDraft((e.target as HTMLInputElement).value)}
            />
            <button type="submit" class="small primary">
              Save
            </button>
            <button type="button" class="small" onClick={() => setDraft(undefined)}>
              Cancel
            </button>
          </form>
        )}
      </td>
      <td>
        <code class="muted">{session.location.directory}</code>
      </td>
      <td>
        <StatusBadge status={session.status} />
      </td>
      <td class="updated" title={stamp(session.time.updated)}>
        {ago(session.time.updated)}
      </td>
      <td class="num" data-testid="row-bytes">
        {size === undefined ? "" : bytes(size)}
      </td>
      <td class="actions">
        {draft === undefined && (
          <button type="button" class="small" data-testid="rename" onClick={() => setDraft(session.title)}>
            Rename
          </button>
        )}
        <button type="button" class="small danger" data-testid="delete" onClick={onDelete}>
          Delete
        </button>
      </td>
    </tr>
  )
}

/**
 * Every session, most recently updated first (the "Updated" column is what it sorts by), live: status,
 * last update and stored bytes; create, rename, delete.
 */
export const SessionsView = () => {
  const live = useMemo(() => new LiveSessions(), [])
  const [, setTick] = useState(0)
  const redraw = () => setTick((n) => n + 1)
  const actions = useActions()
  const confirm = useConfirm()
  const [sizes, setSizes] = useState<ReadonlyMap<string, number>>(new Map())
  useEffect(() => {
    // Stored bytes follow the list's changes, at most once per interval.
    const refresh = throttle(
      () =>
        void api.stats().then(
          (stats) => setSizes(new Map(stats.sessions.map((s) => [s.sessionID, s.bytes]))),
          () => undefined,
        ),
      STATS_INTERVAL_MS,
    )
    live.onChange = () => refresh.request()
    refresh.request()
    const unsubscribe = live.subscribe(redraw)
    // The relative times age.
    const tick = setInterval(() => redraw(), 30_000)
    return () => {
      refresh.cancel()
      clearInterval(tick)
      unsubscribe()
      live.close()
    }
  }, [live])

  return (
    <main class="sessions">
      <h1>Sessions</h1>
      <CreateForm actions={actions} />
      <Notice actions={actions} />
      {live.failure && !live.loaded && (
        <div class="notice error" role="alert">
          {live.failure}
        </div>
      )}
      {!live.loaded ? (
        <p class="muted">Loading…</p>
      ) : live.sessions.length === 0 ? (
        <p class="muted empty" data-testid="no-sessions">
          No sessions yet.
        </p>
      ) : (
        <table class="sessions-table" data-testid="sessions">
          <thead>
            <tr>
              <th>Title</th>
              <th>Directory</th>
              <th>Status</th>
              <th aria-sort="descending">Updated</th>
              <th class="num">Stored</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {live.sessions.map((session) => (
              <Row
                key={session.id}
                session={session}
                size={sizes.get(session.id)}
                onRename={async (title) => {
                  const updated = await actions.run("the rename", () => api.rename(session.id, title))
                  if (updated) live.upsert(updated)
                  return updated !== undefined
                }}
                onDelete={() =>
                  confirm.ask({
                    title: "Delete this session?",
                    body: (
                      <p>
                        “{session.title || "(untitled)"}” and all its messages
                        {sizes.has(session.id) ? ` (${bytes(sizes.get(session.id)!)} stored)` : ""} are deleted for
                        good. Files in <code>{session.location.directory}</code> are not touched. This cannot be undone.
                      </p>
                    ),
                    action: "Delete for good",
                    run: () =>
                      void actions
                        .run("the delete", () => api.remove(session.id).then(() => true))
                        .then((deleted) => deleted && live.drop(session.id)),
                  })
                }
              />
            ))}
          </tbody>
        </table>
      )}
      {confirm.dialog}
    </main>
  )
}
