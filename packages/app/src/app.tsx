import { useEffect, useState } from "preact/hooks"
import { onLink, useRoute } from "./router.ts"
import { SessionView } from "./session.tsx"
import { SessionsView } from "./sessions.tsx"
import { Sidebar } from "./sidebar.tsx"
import { StorageView } from "./storage.tsx"

/**
 * The shell: a top bar, the session sidebar beside a session (a drawer on narrow screens, opened from
 * the bar's menu button), and the view for the current path.
 */
export const App = () => {
  const route = useRoute()
  const [drawer, setDrawer] = useState(false)
  const sessionID = route.name === "session" ? route.sessionID : undefined
  // Following a link closes the drawer.
  useEffect(() => setDrawer(false), [route.name, sessionID])
  const withSidebar = route.name === "session"
  return (
    <div class={`app${withSidebar ? " with-sidebar" : ""}`} onClick={onLink}>
      <nav class="top">
        {withSidebar && (
          <button
            type="button"
            class="menu"
            data-testid="menu"
            aria-label="Sessions"
            aria-expanded={drawer}
            onClick={() => setDrawer((open) => !open)}
          >
            ☰
          </button>
        )}
        <a href="/" class="brand">
          opencode2
        </a>
        <a href="/" class={route.name === "sessions" ? "active" : ""} data-testid="nav-sessions">
          Sessions
        </a>
        <a href="/storage" class={route.name === "storage" ? "active" : ""} data-testid="nav-storage">
          Storage
        </a>
      </nav>
      {withSidebar && <Sidebar current={sessionID} open={drawer} onClose={() => setDrawer(false)} />}
      <div class="content">
        {route.name === "sessions" ? (
          <SessionsView />
        ) : route.name === "session" ? (
          <SessionView key={route.sessionID} sessionID={route.sessionID} />
        ) : route.name === "storage" ? (
          <StorageView />
        ) : (
          <main>
            <h1>Not found</h1>
            <p>
              Nothing at <code>{route.path}</code>. <a href="/">Sessions</a>
            </p>
          </main>
        )}
      </div>
    </div>
  )
}
