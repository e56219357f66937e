import { useEffect, useMemo, useState } from "preact/hooks"
import { api } from "./api.ts"
import { ago } from "./format.ts"
import { LiveSessions } from "./live.ts"
import { navigate } from "./router.ts"

/**
 * The session sidebar beside a session: every session, live, newest activity first, a search over
 * titles and directories, and "New" (a session in the open session's directory). On a wide screen it
 * stays beside the transcript; on a narrow one it is a drawer the header's menu button opens.
 */
export const Sidebar = ({
  current,
  open,
  onClose,
}: {
  current: string | undefined
  open: boolean
  onClose: () => void
}) => {
  const live = useMemo(() => new LiveSessions(), [])
  const [, setTick] = useState(0)
  const [query, setQuery] = useState("")
  const [creating, setCreating] = useState(false)
  useEffect(() => {
    const unsubscribe = live.subscribe(() => setTick((n) => n + 1))
    // The relative times age.
    const tick = setInterval(() => setTick((n) => n + 1), 30_000)
    return () => {
      clearInterval(tick)
      unsubscribe()
      live.close()
    }
  }, [live])
  const needle = query.trim().toLowerCase()
  const shown = needle
    ? live.sessions.filter(
        (s) => s.title.toLowerCase().includes(needle) || s.location.directory.toLowerCase().includes(needle),
      )
    : live.sessions
  const directory = live.sessions.find((s) => s.id === current)?.location.directory
  const create = async () => {
    setCreating(true)
    const session = await api.create(directory ? { directory } : {}).catch(() => undefined)
    setCreating(false)
    if (session) {
      live.upsert(session)
      navigate(`/session/${session.id}`)
    }
  }
  return (
    <>
      {open && <div class="scrim" data-testid="drawer-scrim" onClick={onClose} />}
      <aside class={`sidebar${open ? " open" : ""}`} data-testid="sidebar" aria-label="Sessions">
        <div class="sidebar-head">
          <input
            type="search"
            data-testid="sidebar-search"
            placeholder="Search sessions"
            value={query}
            onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
          />
          <button
            type="button"
            class="primary"
            data-testid="sidebar-new"
            disabled={creating}
            onClick={() => void create()}
          >
            New
          </button>
        </div>
        <nav class="sidebar-list">
          {shown.map((session) => (
            <a
              href={`/session/${session.id}`}
              class={`sidebar-item${session.id === current ? " current" : ""}`}
              data-testid="sidebar-item"
              data-session-id={session.id}
              aria-current={session.id === current ? "page" : undefined}
            >
              <span class="sidebar-title">
                <span class={`dot status-${session.status}`} title={session.status} />
                {session.title || "(untitled)"}
              </span>
              <span class="sidebar-meta">
                {session.location.directory.split("/").filter(Boolean).at(-1) ?? "/"} · {ago(session.time.updated)}
              </span>
            </a>
          ))}
          {live.loaded && shown.length === 0 && (
            <p class="muted sidebar-empty">{needle ? "No session matches." : "No sessions yet."}</p>
          )}
        </nav>
      </aside>
    </>
  )
}
