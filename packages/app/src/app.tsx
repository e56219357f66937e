import { onLink, useRoute } from "./router.ts"
import { SessionView } from "./session.tsx"
import { SessionsView } from "./sessions.tsx"
import { StorageView } from "./storage.tsx"

/** The shell: a top bar and the view for the current path. */
export const App = () => {
  const route = useRoute()
  return (
    <div class="app" onClick={onLink}>
      <nav class="top">
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
  )
}
