import { useEffect, useState } from "preact/hooks"
import { useActions } from "./actions.ts"
import { api } from "./api.ts"
import { useConfirm } from "./confirm.tsx"
import { bytes } from "./format.ts"
import { Notice } from "./notice.tsx"
import type { DatabaseStats, SessionBytes } from "./types.ts"

const KINDS = ["text", "reasoning", "tool", "other"] as const
type Kind = (typeof KINDS)[number]
const LABELS: Record<Kind, string> = { text: "text", reasoning: "reasoning", tool: "tool", other: "message envelope" }

/** One horizontal bar in plain SVG: segments side by side, scaled against `max`. */
const Bar = ({
  segments,
  max,
  label,
}: {
  segments: ReadonlyArray<{ kind: Kind; value: number }>
  max: number
  label: string
}) => {
  let x = 0
  return (
    <svg class="bar" viewBox="0 0 1000 18" preserveAspectRatio="none" role="img" aria-label={label}>
      <rect class="track" x={0} y={0} width={1000} height={18} />
      {segments.map(({ kind, value }) => {
        const width = max > 0 ? (value / max) * 1000 : 0
        const rect = (
          <rect class={`seg ${kind}`} x={x} y={0} width={width} height={18}>
            <title>
              {LABELS[kind]}: {bytes(value)}
            </title>
          </rect>
        )
        x += width
        return rect
      })}
    </svg>
  )
}

const segmentsOf = (session: SessionBytes) => {
  const items = session.items.text + session.items.reasoning + session.items.tool
  return [
    { kind: "text" as const, value: session.items.text },
    { kind: "reasoning" as const, value: session.items.reasoning },
    { kind: "tool" as const, value: session.items.tool },
    { kind: "other" as const, value: Math.max(0, session.bytes - items) },
  ]
}

const Legend = () => (
  <div class="legend row">
    {KINDS.map((kind) => (
      <span>
        <svg class="swatch" viewBox="0 0 10 10">
          <rect class={`seg ${kind}`} width={10} height={10} />
        </svg>
        {LABELS[kind]}
      </span>
    ))}
  </div>
)

/**
 * Where the database's bytes are: per content item type and per session (largest first), charted, with
 * prune (prune tool calls, remove reasoning) and erase (tombstone superseded journal payloads, rebuild the
 * file).
 */
export const StorageView = () => {
  const [stats, setStats] = useState<DatabaseStats | undefined>(undefined)
  const actions = useActions()
  const confirm = useConfirm()
  const load = () =>
    api.stats().then(setStats, (error) => {
      void actions.run("loading the statistics", () => Promise.reject(error))
    })
  useEffect(() => {
    void load()
  }, [])
  if (!stats) {
    return (
      <main class="storage">
        <h1>Storage</h1>
        <Notice actions={actions} />
        <p class="muted">Loading…</p>
      </main>
    )
  }
  const sessions = [...stats.sessions].sort((a, b) => b.bytes - a.bytes)
  const max = sessions[0]?.bytes ?? 0
  const itemMax = Math.max(stats.items.text, stats.items.reasoning, stats.items.tool)
  const prune = async (session: SessionBytes) => {
    const summary = await actions.run(`pruning ${session.title || session.sessionID}`, () =>
      api.prune(session.sessionID),
    )
    if (summary) {
      actions.say(
        `Pruned ${session.title || session.sessionID}: reclaimed ${bytes(summary.bytes)} (${summary.items} item${summary.items === 1 ? "" : "s"})`,
      )
      await load()
    }
  }
  const erase = async (session: SessionBytes) => {
    const summary = await actions.run(`erasing ${session.title || session.sessionID}`, () =>
      api.erase(session.sessionID),
    )
    if (summary) {
      actions.say(
        `Erased ${session.title || session.sessionID}: ${bytes(summary.bytes)} of superseded content in ${summary.events} journal events`,
      )
      await load()
    }
  }
  return (
    <main class="storage">
      <h1>Storage</h1>
      <Notice actions={actions} />
      <section class="cards row">
        <div class="card" data-testid="file-size">
          <div class="muted">database file</div>
          <strong>{bytes(stats.files.database)}</strong>
          <div class="muted">
            WAL {bytes(stats.files.wal)} · {stats.pages.free.toLocaleString()} free pages of{" "}
            {stats.pages.count.toLocaleString()}
          </div>
        </div>
        <div class="card">
          <div class="muted">journal</div>
          <strong>{bytes(stats.journal.bytes)}</strong>
          <div class="muted">{stats.journal.events.toLocaleString()} events</div>
        </div>
        <div class="card">
          <div class="muted">sessions</div>
          <strong>{sessions.length.toLocaleString()}</strong>
          <div class="muted">{bytes(sessions.reduce((n, s) => n + s.bytes, 0))} of messages</div>
        </div>
      </section>

      <h2>By item type</h2>
      <table class="chart" data-testid="item-chart">
        <tbody>
          {(["text", "reasoning", "tool"] as const).map((kind) => (
            <tr data-kind={kind}>
              <th>{kind}</th>
              <td class="bar-cell">
                <Bar
                  segments={[{ kind, value: stats.items[kind] }]}
                  max={itemMax}
                  label={`${kind}: ${bytes(stats.items[kind])}`}
                />
              </td>
              <td class="num">{bytes(stats.items[kind])}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <h2>By session</h2>
      <Legend />
      {sessions.length === 0 ? (
        <p class="muted empty">No sessions.</p>
      ) : (
        <table class="chart" data-testid="session-chart">
          <tbody>
            {sessions.map((session) => (
              <tr data-session-id={session.sessionID} data-testid="storage-row">
                <th>
                  <a href={`/session/${session.sessionID}`}>{session.title || session.sessionID}</a>
                  <div class="muted">
                    {session.messages.toLocaleString()} messages
                    {session.journal > 0 ? ` · journal ${bytes(session.journal)}` : ""}
                  </div>
                </th>
                <td class="bar-cell">
                  <Bar segments={segmentsOf(session)} max={max} label={`${session.title}: ${bytes(session.bytes)}`} />
                </td>
                <td class="num" data-testid="storage-bytes">
                  {bytes(session.bytes)}
                </td>
                <td class="actions">
                  <button
                    type="button"
                    class="small"
                    data-testid="storage-prune"
                    onClick={() =>
                      confirm.ask({
                        title: `Prune “${session.title || session.sessionID}”?`,
                        body: (
                          <p>
                            Every tool call's input and output and all reasoning of its finished messages are deleted
                            for good; message text stays. This cannot be undone.
                          </p>
                        ),
                        action: "Prune",
                        run: () => void prune(session),
                      })
                    }
                  >
                    Prune
                  </button>
                  <button
                    type="button"
                    class="small danger"
                    data-testid="storage-erase"
                    onClick={() =>
                      confirm.ask({
                        title: `Erase “${session.title || session.sessionID}”?`,
                        body: (
                          <p>
                            The content it no longer shows (corrected, retracted and removed text, pruned tool output)
                            is wiped from its journal and the database file is compacted: nothing can bring it back, not
                            even a replay of the journal. This cannot be undone.
                          </p>
                        ),
                        action: "Erase for good",
                        run: () => void erase(session),
                      })
                    }
                  >
                    Erase
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {confirm.dialog}
    </main>
  )
}
