import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks"
import { useActions } from "./actions.ts"
import { api, STATS_INTERVAL_MS } from "./api.ts"
import { useConfirm } from "./confirm.tsx"
import { bytes, plural } from "./format.ts"
import { perFrame } from "./frame.ts"
import { LiveSession } from "./live.ts"
import { type MessageActions, MessageRow } from "./message.tsx"
import { Notice } from "./notice.tsx"
import { PermissionCard } from "./permission.tsx"
import { PromptBox } from "./prompt.tsx"
import { QuestionCard } from "./question.tsx"
import { fileChanges } from "./review.ts"
import { ReviewPanel } from "./review-panel.tsx"
import { navigate } from "./router.ts"
import { throttle } from "./throttle.ts"
import { TodoPanel } from "./todo.tsx"
import type { Question, Todo } from "./types.ts"
import { isQueued } from "./transcript.ts"

/** How many of the newest messages the first screen renders; more as the reader scrolls up. */
const FIRST_SCREEN = 50
const MORE = 100

const STATUS_TITLE: Record<string, string> = {
  idle: "no turn is running",
  busy: "a turn is running",
  retrying: "a turn waits to retry a failed model request",
  waiting: "a turn waits for a permission answer",
  suspended: "a turn was cut off by a restart and waits to be resumed",
}

/** The session's status: `idle`, `busy`, `retrying`, `waiting` (for a permission answer), `suspended`. */
export const StatusBadge = ({ status }: { status: string }) => (
  <span class={`badge status-${status}`} data-testid="status" title={STATUS_TITLE[status] ?? status}>
    {status}
  </span>
)

const Title = ({ title, onRename }: { title: string; onRename: (title: string) => Promise<boolean> }) => {
  const [draft, setDraft] = useState<string | undefined>(undefined)
  if (draft === undefined) {
    return (
      <h1 class="title">
        <span data-testid="session-title">{title || "(untitled)"}</span>
        <button type="button" class="small" data-testid="rename" onClick={() => setDraft(title)}>
          Rename
        </button>
      </h1>
    )
  }
  const save = async () => {
    if (await onRename(draft)) setDraft(undefined)
  }
  return (
    <form
      class="title row"
      onSubmit={(e) => {
        e.preventDefault()
        void save()
      }}
    >
      <input data-testid="rename-input" value={draft} onInput={(e) => setDraft((e.target as HTMLInputElement).value)} />
      <button type="submit" class="primary">
        Save
      </button>
      <button type="button" onClick={() => setDraft(undefined)}>
        Cancel
      </button>
    </form>
  )
}

/** "Show earlier messages": a button, pressed by itself when the reader scrolls up to it. */
const Earlier = ({ hidden, onShow }: { hidden: number; onShow: () => void }) => {
  const button = useRef<HTMLButtonElement>(null)
  const show = useRef(onShow)
  show.current = onShow
  useEffect(() => {
    const element = button.current
    if (!element || typeof IntersectionObserver === "undefined") return
    // Only once the first screen has settled at the bottom, so opening a session does not load everything.
    let armed = false
    const arm = setTimeout(() => (armed = true), 500)
    const observer = new IntersectionObserver((entries) => {
      if (armed && entries.some((e) => e.isIntersecting)) show.current()
    })
    observer.observe(element)
    return () => {
      clearTimeout(arm)
      observer.disconnect()
    }
  }, [])
  return (
    <button ref={button} type="button" class="link earlier" data-testid="earlier" onClick={() => show.current()}>
      Show earlier messages{hidden > 0 ? ` (${hidden} more loaded)` : ""}
    </button>
  )
}

/**
 * A session: its live transcript (streaming text, collapsed reasoning, tool calls with their diff,
 * retracted, removed and edited content marked, queued input), pending permission requests, the prompt
 * box, and the transcript actions (correct, retract, remove, deep clean) with busy retry.
 */
export const SessionView = ({ sessionID }: { sessionID: string }) => {
  const live = useMemo(() => new LiveSession(sessionID), [sessionID])
  const [, setTick] = useState(0)
  const redraw = () => setTick((n) => n + 1)
  useEffect(() => {
    const unsubscribe = live.subscribe(perFrame(redraw))
    redraw()
    return () => {
      unsubscribe()
      live.close()
    }
  }, [live])
  const actions = useActions(live.onIdle)
  const confirm = useConfirm()
  const [tab, setTab] = useState<"transcript" | "review">("transcript")
  const state = live.state
  const [visible, setVisible] = useState(FIRST_SCREEN)
  const [size, setSize] = useState<number | undefined>(undefined)

  // The session's stored bytes, refreshed as the transcript changes, at most once per interval.
  const lastSeq = state?.lastSeq
  const sizeRefresh = useMemo(
    () =>
      throttle(
        () =>
          void api.stats(sessionID).then(
            (stats) => setSize(stats.sessions.find((s) => s.sessionID === sessionID)?.bytes ?? 0),
            () => undefined,
          ),
        STATS_INTERVAL_MS,
      ),
    [sessionID],
  )
  useEffect(() => () => sizeRefresh.cancel(), [sizeRefresh])
  useEffect(() => {
    if (lastSeq !== undefined) sizeRefresh.request()
  }, [lastSeq, sizeRefresh])

  // Questions and the todo list are read again whenever the session's seq moves (their events carry a
  // seq like every durable event); a server without their routes shows none.
  const [questions, setQuestions] = useState<ReadonlyArray<Question>>([])
  const [todos, setTodos] = useState<ReadonlyArray<Todo>>([])
  const [asked, setAsked] = useState(0)
  useEffect(() => {
    if (lastSeq === undefined) return
    let current = true
    void api.questions(sessionID).then(
      (list) => current && setQuestions(list),
      () => undefined,
    )
    void api.todos(sessionID).then(
      (list) => current && setTodos(list),
      () => undefined,
    )
    return () => {
      current = false
    }
  }, [lastSeq, sessionID, asked])

  const title = state?.title
  useEffect(() => {
    document.title = title ? `${title} · opencode2` : "opencode2"
  }, [title])

  // Follow the newest content while the reader is at the bottom.
  const pinned = useRef(true)
  useEffect(() => {
    const track = () => {
      pinned.current = innerHeight + scrollY >= document.documentElement.scrollHeight - 80
    }
    addEventListener("scroll", track, { passive: true })
    return () => removeEventListener("scroll", track)
  }, [])
  useLayoutEffect(() => {
    if (pinned.current) scrollTo(0, document.documentElement.scrollHeight)
  })

  // A mutation's effect shows when its event arrives on the stream (right after the answer), so the view
  // applies every change through the same rules exactly once.
  const messageActions = useMemo<MessageActions>(
    () => ({
      correct: async (message, itemID, text) => {
        const updated = await actions.run("the correction", () => api.correct(sessionID, message.id, itemID, text))
        return updated !== undefined
      },
      retract: (message) => {
        void actions.run("the retraction", () => api.retract(sessionID, message.id))
      },
      revertTo: (message) => {
        void actions
          .run("the revert", () => api.revertStage(sessionID, message.id))
          .then((state) => {
            const left = state?.conflicts ?? []
            if (left.length > 0)
              actions.say(`Left alone (changed outside the session): ${left.map((c) => c.path).join(", ")}`)
          })
      },
      forkFrom: (message) => {
        void actions
          .run("the fork", () => api.fork(sessionID, message.id))
          .then((forked) => {
            if (forked) navigate(`/session/${forked.id}`)
          })
      },
      removeItem: (message, itemID, kind) => {
        void actions.run(kind === "tool" ? "removing the tool call" : "removing the reasoning", () =>
          api.removeItem(sessionID, message.id, itemID),
        )
      },
    }),
    [live],
  )

  if (!state) {
    return (
      <main class="session">
        {live.failure ? (
          <div class="notice error" role="alert" data-testid="error">
            {live.failure} <a href="/">Back to sessions</a>
          </div>
        ) : (
          <p class="muted" data-testid="loading">
            Loading…
          </p>
        )}
      </main>
    )
  }

  const busy = state.status !== "idle"
  const changed = new Set(fileChanges(state.messages).map((c) => c.path)).size
  // A turn waits the same way for a permission and for a question's answer: say which.
  const progress =
    state.status === "waiting" && state.permissions.length === 0 && questions.length > 0 ? "question" : state.status
  const delivered = state.messages.filter((m) => !isQueued(m))
  const queued = state.messages.filter(isQueued)
  const shown = delivered.length > visible ? delivered.slice(-visible) : delivered
  const hidden = delivered.length - shown.length
  const finished = state.messages.flatMap((m) =>
    m.type === "assistant" && m.time.completed !== undefined ? m.content : [],
  )
  const prunable = {
    tools: finished.filter((i) => i.type === "tool" && i.time.pruned === undefined).length,
    reasoning: finished.filter((i) => i.type === "reasoning").length,
  }
  const confirmDeepClean = () =>
    confirm.ask({
      title: "Deep clean this session?",
      body: (
        <p>
          This deletes for good every tool call's input and output and all reasoning of the finished messages (
          {plural(prunable.tools, "tool call")} and {plural(prunable.reasoning, "reasoning item")} among the messages
          loaded here). The model will not see them again. Message text stays. This cannot be undone.
        </p>
      ),
      action: "Deep clean",
      run: () => void deepClean(),
    })
  const revert = state.revert
  const confirmRevertCommit = () =>
    confirm.ask({
      title: "Make the revert final?",
      body: (
        <>
          <p>
            The messages after the chosen one are deleted for good, and the files stay as restored
            {revert?.restored?.length ? ":" : "."}
          </p>
          {revert?.restored?.length ? (
            <ul>
              {revert.restored.map((file) => (
                <li>
                  <code>{file.path}</code>
                </li>
              ))}
            </ul>
          ) : null}
          <p>This cannot be undone.</p>
        </>
      ),
      action: "Make final",
      run: () => void actions.run("the revert commit", () => api.revertCommit(sessionID)),
    })
  const deepClean = async () => {
    const summary = await actions.run("the deep clean", () => api.prune(sessionID))
    if (summary) {
      actions.say(
        `Deep clean reclaimed ${bytes(summary.bytes)} (${summary.items} item${summary.items === 1 ? "" : "s"} from ${summary.messages} message${summary.messages === 1 ? "" : "s"})`,
      )
    }
  }

  return (
    <main class="session" data-session-id={sessionID}>
      <section class="session-head">
        <Title
          title={state.title}
          onRename={async (title) => {
            const updated = await actions.run("the rename", () => api.rename(sessionID, title))
            return updated !== undefined
          }}
        />
        <div class="row meta">
          <StatusBadge status={state.status} />
          <span class={`badge connection-${live.connection}`} data-testid="connection">
            {live.connection}
          </span>
          <code class="muted" title="directory">
            {state.directory}
          </code>
          {state.parentID && (
            <a href={`/session/${state.parentID}`} data-testid="parent-session">
              Parent session
            </a>
          )}
          <span class="muted" data-testid="session-bytes">
            {size === undefined ? "" : bytes(size)}
          </span>
          <span class="spacer" />
          <button type="button" data-testid="prune" disabled={state.deleted} onClick={confirmDeepClean}>
            Deep clean
          </button>
        </div>
        <div class="tabs" role="tablist">
          <button
            type="button"
            role="tab"
            aria-selected={tab === "transcript"}
            data-testid="tab-transcript"
            onClick={() => setTab("transcript")}
          >
            Transcript
          </button>
          <button
            type="button"
            role="tab"
            aria-selected={tab === "review"}
            data-testid="tab-review"
            onClick={() => setTab("review")}
          >
            Review{changed > 0 ? ` (${changed})` : ""}
          </button>
        </div>
        {state.retry && (
          <div class="notice busy" role="status" data-testid="retrying">
            The provider failed ({state.retry.message}); retry {state.retry.attempt}
            {state.retry.next ? ` at ${new Date(state.retry.next).toLocaleTimeString()}` : ""}
          </div>
        )}
        <Notice actions={actions} />
      </section>

      {state.deleted && (
        <div class="notice error" role="alert" data-testid="deleted">
          This session was deleted. <a href="/">Back to sessions</a>
        </div>
      )}

      {revert && (
        <section class="notice revert" role="status" data-testid="revert-staged">
          <div class="revert-text">
            <strong>Revert staged.</strong> The messages after the chosen one are hidden
            {revert.restored && revert.restored.length > 0
              ? ` and ${plural(revert.restored.length, "file")} restored; review them, then make it final or undo it.`
              : "; no file needed restoring."}
            {revert.restored && revert.restored.length > 0 && (
              <ul class="staged-files" data-testid="revert-files">
                {revert.restored.map((file) => (
                  <li data-testid="revert-file">
                    <code>{file.path}</code>
                    <span class="muted">
                      {file.image === null ? " removed (it did not exist before)" : " restored"}
                    </span>
                  </li>
                ))}
              </ul>
            )}
            {revert.conflicts && revert.conflicts.length > 0 && (
              <p class="muted" data-testid="revert-conflicts">
                Left alone (changed outside the session): {revert.conflicts.map((c) => c.path).join(", ")}
              </p>
            )}
          </div>
          <div class="row">
            <button
              type="button"
              data-testid="revert-clear"
              onClick={() => void actions.run("undoing the revert", () => api.revertClear(sessionID))}
            >
              Undo revert
            </button>
            <button type="button" class="danger" data-testid="revert-commit" onClick={confirmRevertCommit}>
              Make final
            </button>
          </div>
        </section>
      )}

      {tab === "review" && <ReviewPanel messages={delivered} />}

      <section class="transcript" data-testid="transcript" hidden={tab !== "transcript"}>
        {(hidden > 0 || state.hasOlder) && (
          <Earlier
            hidden={hidden}
            onShow={() => {
              if (hidden === 0) void live.loadOlder()
              setVisible((v) => v + MORE)
            }}
          />
        )}
        {[...shown, ...queued].map((message) => (
          <MessageRow
            key={message.id}
            message={message}
            live={state.live.get(message.id)}
            status={progress}
            actions={messageActions}
          />
        ))}
        {state.messages.length === 0 && <p class="muted empty">No messages yet. Say something below.</p>}
      </section>

      <TodoPanel todos={todos} />

      {questions.map((question) => (
        <QuestionCard
          key={question.id}
          question={question}
          onAnswer={async (answers) => {
            await actions.run("the answer", () => api.answer(sessionID, question.id, answers))
            setAsked((n) => n + 1)
          }}
          onDismiss={async () => {
            await actions.run("dismissing the question", () => api.dismiss(sessionID, question.id))
            setAsked((n) => n + 1)
          }}
        />
      ))}

      {state.permissions.map((permission) => (
        <PermissionCard
          key={permission.id}
          permission={permission}
          onReply={async (reply, message) => {
            await actions.run("the permission reply", () => api.reply(sessionID, permission.id, reply, message))
          }}
        />
      ))}

      {confirm.dialog}

      <PromptBox
        busy={busy}
        disabled={state.deleted}
        directory={state.directory}
        onSend={async (input) => (await actions.run("the prompt", () => api.prompt(sessionID, input))) !== undefined}
        onInterrupt={() => void actions.run("the interrupt", () => api.interrupt(sessionID))}
      />
    </main>
  )
}
