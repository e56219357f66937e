import {
  BoxRenderable,
  type CliRenderer,
  createCliRenderer,
  type KeyEvent,
  ScrollBoxRenderable,
  TextareaRenderable,
  TextRenderable,
} from "@opentui/core"
import type {
  OpencodeClient,
  PermissionV2Request,
  QuestionV2Request,
  SessionMessage,
  SessionV2Info,
} from "@opencode-ai/sdk/v2"
import { call, done } from "./client/call.ts"
import { SessionLive } from "./client/session-live.ts"
import { helpItems, KEYS } from "./keys.ts"
import { messageLines } from "./view/message.ts"
import { Picker, type PickerItem } from "./view/picker.ts"
import { color, type Line, type Span, styled } from "./view/style.ts"

/** The server the TUI talks to, and what the person must know about it. */
export interface TuiConnection {
  readonly client: OpencodeClient
  /** The server's URL, shown when attached. */
  readonly url: string
  /** The TUI attached to a server it did not start (shown in the status line). */
  readonly attached: boolean
  /** Warnings shown above the transcript, e.g. the attached server's directory or config differs. */
  readonly notices?: ReadonlyArray<string>
}

/** What the CLI hands the TUI. */
export interface TuiOptions {
  /** The directory the TUI works in (new sessions are created there). */
  readonly directory: string
  /**
   * Starts or finds the server. Called after the first frame is drawn, so the screen is up while an
   * in-process host opens its database.
   */
  readonly connect: () => Promise<TuiConnection>
  /** Open this session instead of the newest one of the directory. */
  readonly sessionID?: string
}

const FRAME_MS = 16
/** Rows drawn at once when a session opens; older ones follow in batches. */
const FIRST_ROWS = 120
const BACKFILL_ROWS = 150

/** Text cut into lines of at most `width` columns, at spaces where it can be. */
const wrap = (text: string, width: number): Array<string> => {
  const out: Array<string> = []
  let rest = text
  while (rest.length > width) {
    const space = rest.lastIndexOf(" ", width)
    const cut = space > width / 2 ? space : width
    out.push(rest.slice(0, cut))
    rest = rest.slice(cut).trimStart()
  }
  out.push(rest)
  return out
}

/** The smallest terminal the layout is drawn in; below it the TUI says so. */
export const MIN_WIDTH = 40
export const MIN_HEIGHT = 12

/** Commands the TUI handles itself; any other `/text` goes to the server as a prompt. */
const LOCAL_COMMANDS: ReadonlyArray<{ name: string; description: string }> = [
  { name: "exit", description: "leave the TUI" },
  { name: "help", description: "every key" },
  { name: "sessions", description: "list, switch, rename, delete, fork sessions" },
  { name: "new", description: "a new session in this directory" },
  { name: "rename", description: "rename this session" },
  { name: "agent", description: "switch agent" },
  { name: "model", description: "switch model" },
  { name: "compact", description: "compact this session now" },
  { name: "prune", description: "remove every tool output and reasoning of this session" },
  { name: "erase", description: "erase superseded content from the journal" },
  { name: "revert", description: "the staged revert: commit or clear it" },
]

const short = (n: number) =>
  n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n)
const ago = (time: number) => {
  const s = Math.max(0, Math.round((Date.now() - time) / 1000))
  return s < 60
    ? `${s}s ago`
    : s < 3600
      ? `${Math.round(s / 60)}m ago`
      : s < 86400
        ? `${Math.round(s / 3600)}h ago`
        : `${Math.round(s / 86400)}d ago`
}
const bytes = (n: number) =>
  n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`

export class App {
  private live: SessionLive | undefined
  private drawTimer: ReturnType<typeof setTimeout> | undefined
  /** Index in the session's messages of the first one with a row (older rows are still being added). */
  private renderFrom = 0
  private conn: TuiConnection | undefined
  private unsubscribe: (() => void) | undefined
  private readonly rows = new Map<string, TextRenderable>()
  private readonly expanded = new Set<string>()
  private selected: string | undefined
  private focus: "prompt" | "transcript" = "prompt"
  private history: Array<string> = []
  private historyIndex = -1
  private ctrlC = false
  private flash: string | undefined
  private commands: Array<{ name: string; description: string }> = [...LOCAL_COMMANDS]
  private completions: Array<string> = []
  private questionAnswers: Array<Array<string>> = []
  private exiting = false
  private resolveExit!: (code: number) => void
  readonly exited = new Promise<number>((resolve) => (this.resolveExit = resolve))

  private readonly root: BoxRenderable
  private readonly banner: TextRenderable
  private readonly scroll: ScrollBoxRenderable
  private readonly todo: BoxRenderable
  private readonly todoText: TextRenderable
  private readonly card: BoxRenderable
  private readonly cardText: TextRenderable
  private readonly completion: TextRenderable
  private readonly promptBox: BoxRenderable
  private readonly prompt: TextareaRenderable
  private readonly status: TextRenderable
  private readonly tooSmall: TextRenderable
  private readonly picker: Picker

  private constructor(
    private readonly renderer: CliRenderer,
    private readonly options: TuiOptions,
  ) {
    this.root = new BoxRenderable(renderer, { id: "root", flexDirection: "column", width: "100%", height: "100%" })
    // Wrapped here, line by line: the banner's height then always matches its lines.
    this.banner = new TextRenderable(renderer, { id: "banner", content: "", visible: false, wrapMode: "none" })
    const main = new BoxRenderable(renderer, { id: "main", flexDirection: "row", flexGrow: 1 })
    this.scroll = new ScrollBoxRenderable(renderer, {
      id: "transcript",
      flexGrow: 1,
      stickyScroll: true,
      stickyStart: "bottom",
      viewportCulling: true,
    })
    this.todo = new BoxRenderable(renderer, {
      id: "todo",
      width: 30,
      border: true,
      borderColor: color.border,
      title: " todo ",
      visible: false,
    })
    this.todoText = new TextRenderable(renderer, { id: "todo-text", content: "" })
    this.todo.add(this.todoText)
    main.add(this.scroll)
    main.add(this.todo)
    this.card = new BoxRenderable(renderer, {
      id: "card",
      border: true,
      borderColor: color.warn,
      visible: false,
      paddingLeft: 1,
      flexShrink: 0,
    })
    this.cardText = new TextRenderable(renderer, { id: "card-text", content: "" })
    this.card.add(this.cardText)
    this.completion = new TextRenderable(renderer, {
      id: "completion",
      content: "",
      visible: false,
      wrapMode: "none",
      flexShrink: 0,
    })
    this.promptBox = new BoxRenderable(renderer, {
      id: "prompt-box",
      border: true,
      borderColor: color.accent,
      minHeight: 3,
      maxHeight: 8,
      flexShrink: 0,
    })
    this.prompt = new TextareaRenderable(renderer, {
      id: "prompt",
      placeholder: "Ask anything · Enter send · Shift+Enter / Ctrl+J new line · ? keys",
      textColor: color.text,
      focusedTextColor: color.text,
      keyBindings: [
        { name: "return", action: "submit" },
        { name: "return", shift: true, action: "newline" },
        { name: "j", ctrl: true, action: "newline" },
        { name: "linefeed", action: "newline" },
      ],
      onSubmit: () => this.submit(),
    })
    this.prompt.onContentChange = () => this.updateCompletions()
    this.promptBox.add(this.prompt)
    this.status = new TextRenderable(renderer, { id: "status", content: "", height: 1, flexShrink: 0 })
    this.root.add(this.banner)
    this.root.add(main)
    this.root.add(this.card)
    this.root.add(this.completion)
    this.root.add(this.promptBox)
    this.root.add(this.status)
    this.tooSmall = new TextRenderable(renderer, { id: "too-small", content: "", visible: false })
    // Closing an overlay returns to where the keys went before: the prompt or the transcript.
    this.picker = new Picker(renderer, () => (this.focus === "prompt" ? this.focusPrompt() : this.drawStatus()))
    renderer.root.add(this.root)
    renderer.root.add(this.tooSmall)
    renderer.root.add(this.picker.box)
    renderer.keyInput.on("keypress", (key) => this.key(key))
    renderer.on("resize", () => this.layout())
    this.layout()
    this.prompt.focus()
  }

  /** Starts the TUI on the terminal; resolves when it exits, with the exit code. */
  static async start(options: TuiOptions): Promise<number> {
    const renderer = await createCliRenderer({
      exitOnCtrlC: false,
      exitSignals: [],
      useMouse: true,
      targetFps: 60,
      autoFocus: false,
    })
    const app = new App(renderer, options)
    void app.boot()
    return app.exited
  }

  private async boot() {
    this.drawStatus()
    this.renderer.requestRender()
    try {
      this.conn = await this.options.connect()
    } catch (cause) {
      return this.notify(`cannot start or reach the host: ${cause instanceof Error ? cause.message : String(cause)}`)
    }
    this.drawBanner()
    void this.loadCommands()
    try {
      const sessionID = this.options.sessionID ?? (await this.latestSession())
      await this.openSession(sessionID)
    } catch (cause) {
      this.notify(`cannot open a session: ${cause instanceof Error ? cause.message : String(cause)}`)
    }
  }

  private async latestSession(): Promise<string> {
    const page = await call(
      this.conn!.client.v2.session.list({ directory: this.options.directory, order: "desc", limit: 1 }),
    )
    const latest = page.data.find((s) => s.location.directory === this.options.directory)
    if (latest) return latest.id
    return (await this.createSession()).id
  }

  private async createSession(): Promise<SessionV2Info> {
    const created = await call(
      this.conn!.client.v2.session.create({ location: { directory: this.options.directory } } as never),
    )
    return (created as { data: SessionV2Info }).data
  }

  private async loadCommands() {
    try {
      const listed = await call(this.conn!.client.v2.command.list({ directory: this.options.directory } as never))
      const server = (listed as { data: ReadonlyArray<{ name: string; description?: string }> }).data
      this.commands = [
        ...LOCAL_COMMANDS,
        ...server
          .filter((c) => !LOCAL_COMMANDS.some((l) => l.name === c.name))
          .map((c) => ({ name: c.name, description: c.description ?? "command" })),
      ]
    } catch {
      // Completion then offers the TUI's own commands only.
    }
  }

  async openSession(sessionID: string) {
    this.unsubscribe?.()
    this.live?.close()
    for (const row of this.rows.values()) row.destroy()
    this.rows.clear()
    this.expanded.clear()
    this.selected = undefined
    this.questionAnswers = []
    const live = await SessionLive.open(this.conn!.client, sessionID)
    this.live = live
    this.unsubscribe = live.onChange(() => this.scheduleDraw())
    this.draw()
    // A session opens at its end, following new output (the scroll box sticks to the bottom from there).
    this.scroll.afterLayout(() => {
      this.scroll.scrollTop = this.scroll.scrollHeight
    })
  }

  // ── drawing ─────────────────────────────────────────────────────────────

  private layout() {
    const { width, height } = this.renderer
    const small = width < MIN_WIDTH || height < MIN_HEIGHT
    this.root.visible = !small
    this.tooSmall.visible = small
    this.tooSmall.content = `Terminal too small (${width}x${height}): opencode2 needs at least ${MIN_WIDTH}x${MIN_HEIGHT}.`
    this.todo.width = width >= 100 ? 34 : 26
    this.drawTodo()
    this.picker.redraw()
    this.drawStatus()
  }

  private view() {
    const live = this.live!
    return { tail: (m: string, i: string) => live.tail(m, i), expanded: this.expanded, selected: this.selected }
  }

  /**
   * Streaming changes are drawn at most once a frame: a turn can send hundreds of deltas a second, and a
   * key typed meanwhile must not wait behind a redraw per delta.
   */
  private scheduleDraw() {
    if (this.drawTimer) return
    this.drawTimer = setTimeout(() => {
      this.drawTimer = undefined
      this.draw()
    }, FRAME_MS)
  }

  private draw() {
    const live = this.live
    if (!live) return
    if (live.deleted) {
      this.notify("this session was deleted: open another with /sessions")
    }
    const view = this.view()
    if (live.all) {
      live.all = false
      live.changed.clear()
      const ids = new Set(live.messages.map((m) => m.id))
      for (const [id, row] of this.rows)
        if (!ids.has(id)) {
          this.scroll.remove(row)
          row.destroy()
          this.rows.delete(id)
        }
      // A session just opened shows its newest messages at once; older rows are added behind the first frame.
      const start = this.rows.size === 0 ? Math.max(0, live.messages.length - FIRST_ROWS) : 0
      this.renderFrom = start
      for (let i = start; i < live.messages.length; i++) this.upsertRow(live.messages[i]!, i - start, view, true)
      if (start > 0) this.scheduleBackfill(live)
    } else if (live.changed.size > 0) {
      const changed = new Set(live.changed)
      live.changed.clear()
      for (let i = this.renderFrom; i < live.messages.length; i++) {
        const message = live.messages[i]!
        if (changed.has(message.id) || !this.rows.has(message.id))
          this.upsertRow(message, i - this.renderFrom, view, false)
      }
    }
    this.drawCard()
    this.drawTodo()
    this.drawBanner()
    this.drawStatus()
  }

  /** Adds the rows of older messages, a batch at a time, above the ones shown. */
  private scheduleBackfill(live: SessionLive) {
    setTimeout(() => {
      if (this.live !== live || this.renderFrom === 0 || this.exiting) return
      const from = Math.max(0, this.renderFrom - BACKFILL_ROWS)
      const view = this.view()
      live.messages.slice(from, this.renderFrom).forEach((message, k) => {
        if (this.rows.has(message.id)) return
        const row = new TextRenderable(this.renderer, {
          id: `m-${message.id}`,
          content: styled(messageLines(message, view)),
          marginBottom: 1,
        })
        this.rows.set(message.id, row)
        this.scroll.add(row, k)
      })
      this.renderFrom = from
      if (from > 0) this.scheduleBackfill(live)
    }, 0)
  }

  private upsertRow(message: SessionMessage, index: number, view: ReturnType<App["view"]>, reorder: boolean) {
    let row = this.rows.get(message.id)
    const content = styled(messageLines(message, view))
    if (!row) {
      row = new TextRenderable(this.renderer, { id: `m-${message.id}`, content, marginBottom: 1 })
      this.rows.set(message.id, row)
      this.scroll.add(row, index)
      return
    }
    row.content = content
    if (reorder && this.scroll.getChildren()[index] !== row) {
      this.scroll.remove(row)
      this.scroll.add(row, index)
    }
  }

  private redrawMessage(id: string | undefined) {
    if (!id || !this.live) return
    const message = this.live.messages.find(
      (m) => m.id === id || (m.type === "assistant" && m.content.some((i) => i.id === id)),
    )
    const row = message && this.rows.get(message.id)
    if (row) row.content = styled(messageLines(message, this.view()))
  }

  private drawBanner() {
    const live = this.live
    const lines: Array<Line> = []
    if (live && live.connection === "reconnecting")
      lines.push([
        {
          text: " connection lost: reconnecting… (events resume where they stopped) ",
          fg: "#1d2129",
          bg: color.error,
          bold: true,
        },
      ])
    const width = Math.max(20, this.renderer.width - 1)
    for (const notice of this.conn?.notices ?? [])
      for (const part of wrap(`⚠ ${notice}`, width)) lines.push([{ text: part, fg: color.warn }])
    if (this.flash) for (const part of wrap(this.flash, width)) lines.push([{ text: part, fg: color.warn }])
    this.banner.content = styled(lines)
    this.banner.height = Math.max(1, lines.length)
    this.banner.visible = lines.length > 0
  }

  private notify(text: string) {
    this.flash = text
    this.drawBanner()
  }

  private drawTodo() {
    const todos = this.live?.todos ?? []
    const show = todos.length > 0 && this.renderer.width >= 80
    this.todo.visible = show
    if (!show) return
    const icon: Record<string, string> = { completed: "☑", in_progress: "◐", cancelled: "☒" }
    this.todoText.content = styled(
      todos.map((t): Line => [
        { text: `${icon[t.status] ?? "☐"} `, fg: t.status === "in_progress" ? color.warn : color.accent },
        {
          text: t.content,
          fg: t.status === "completed" || t.status === "cancelled" ? color.dim : color.text,
          strike: t.status === "cancelled",
        },
      ]),
    )
  }

  private permission(): PermissionV2Request | undefined {
    return this.live?.permissions[0]
  }

  private question(): QuestionV2Request | undefined {
    return this.live?.questions[0]
  }

  private drawCard() {
    const ask = this.permission()
    const question = this.question()
    const lines: Array<Line> = []
    if (ask) {
      this.card.title = " permission "
      this.card.borderColor = color.warn
      lines.push([
        { text: `${ask.title ?? ask.action} `, fg: color.warn, bold: true },
        // A title usually names the resources already ("edit a.ts").
        { text: ask.title?.includes(ask.resources.join(", ")) ? "" : ask.resources.join(", "), fg: color.text },
      ])
      const diff = ask.metadata?.["diff"]
      if (typeof diff === "string" && diff !== "") {
        const max = Math.max(3, Math.floor(this.renderer.height / 3))
        const diffLines = diff.replace(/\n$/, "").split("\n")
        for (const line of diffLines.slice(0, max))
          lines.push([
            { text: line, fg: line.startsWith("+") ? color.add : line.startsWith("-") ? color.remove : color.dim },
          ])
        if (diffLines.length > max) lines.push([{ text: `… ${diffLines.length - max} more diff lines`, fg: color.dim }])
      } else {
        const input = ask.metadata?.["input"]
        if (input !== undefined) lines.push([{ text: JSON.stringify(input).slice(0, 200), fg: color.dim }])
      }
      // In the words `opencode2 run` uses: `*` grants the whole kind (every file edit for file changes).
      const saved = ask.save ?? ask.resources
      const covers = saved.includes("*")
        ? ask.action === "edit"
          ? "every file edit (edit, write, patch)"
          : `every ${ask.action} request`
        : `${ask.action} ${saved.join(", ")}`
      lines.push([
        { text: "o", fg: color.accent, bold: true },
        { text: " once  ", fg: color.text },
        { text: "a", fg: color.accent, bold: true },
        { text: ` always (allows ${covers} for the rest of this session)  `, fg: color.text },
        { text: "r", fg: color.accent, bold: true },
        { text: " reject  ", fg: color.text },
        { text: "R", fg: color.accent, bold: true },
        { text: " reject with a message", fg: color.text },
      ])
    } else if (question) {
      const at = this.questionAnswers.length
      const q = question.questions[at]
      this.card.title = ` question ${at + 1}/${question.questions.length} `
      this.card.borderColor = color.accent
      if (q) {
        lines.push([{ text: q.question, fg: color.text, bold: true }])
        q.options.forEach((option, i) =>
          lines.push([
            { text: `${i + 1}`, fg: color.accent, bold: true },
            { text: ` ${option.label}`, fg: color.text },
            { text: option.description ? `  ${option.description}` : "", fg: color.dim },
          ]),
        )
        lines.push([{ text: "1-9 choose · or type an answer and press Enter · Ctrl+D dismiss", fg: color.dim }])
      }
    }
    this.card.visible = lines.length > 0
    this.cardText.content = styled(lines)
  }

  private drawStatus() {
    const live = this.live
    const info = live?.info
    const spans: Array<Span> = []
    const sep = { text: " · ", fg: color.border }
    if (info) {
      const model = info.model ? `${info.model.providerID}/${info.model.id}` : "default model"
      const tokens = info.tokens.input + info.tokens.output + info.tokens.reasoning
      const status = live.shownStatus
      spans.push(
        { text: ` ${info.agent ?? "build"}`, fg: color.accent, bold: true },
        sep,
        { text: model, fg: color.text },
        sep,
        { text: `${short(tokens)} tok $${info.cost.toFixed(2)}`, fg: color.dim },
      )
      if (info.context) {
        const pct = info.context.limit ? ` ${Math.round((info.context.tokens / info.context.limit) * 100)}%` : ""
        spans.push(sep, { text: `ctx ${short(info.context.tokens)}${pct}`, fg: color.dim })
      }
      spans.push(sep, {
        text: status,
        fg:
          status === "idle"
            ? color.add
            : status === "waiting"
              ? color.warn
              : status === "retrying"
                ? color.error
                : color.accent,
        bold: true,
      })
    } else spans.push({ text: " connecting…", fg: color.dim })
    spans.push(sep, {
      text: !this.conn ? "starting host…" : this.conn.attached ? `attached to ${this.conn.url}` : "local host",
      fg: this.conn?.attached ? color.warn : color.dim,
    })
    if (this.ctrlC) spans.push(sep, { text: "Ctrl+C again to exit", fg: color.warn, bold: true })
    // Transcript focus is said first: the line is cut at the terminal's width.
    if (this.focus === "transcript")
      spans.unshift({ text: " TRANSCRIPT ↑↓ Enter x p f v · Tab back ", fg: "#1d2129", bg: color.accent, bold: true })
    this.status.content = styled([spans])
  }

  // ── prompt ──────────────────────────────────────────────────────────────

  private focusPrompt() {
    this.focus = "prompt"
    this.prompt.focus()
    this.drawStatus()
  }

  private updateCompletions() {
    const text = this.prompt.plainText
    this.completions = []
    const slash = /^\/(\S*)$/.exec(text)
    if (slash) {
      this.completions = this.commands.filter((c) => c.name.startsWith(slash[1]!)).map((c) => `/${c.name}`)
      this.showCompletions(
        this.commands.filter((c) => c.name.startsWith(slash[1]!)).map((c) => [`/${c.name}`, c.description]),
      )
      return
    }
    const at = /(?:^|\s)@(\S*)$/.exec(text)
    if (at && this.live) {
      const query = at[1]!
      const directory = this.live.info.location.directory
      void call(this.conn!.client.v2.fs.find({ location: { directory }, query: query || ".", limit: "8" }))
        .then((found) => {
          if (this.prompt.plainText !== text) return
          const files = (found as { data: ReadonlyArray<{ path: string }> }).data
            .map((f) => f.path)
            .filter((p) => !p.startsWith("/") && !p.split("/").includes(".."))
          this.completions = files.map((p) => `@${p}`)
          this.showCompletions(files.map((p) => [`@${p}`, ""]))
        })
        .catch(() => undefined)
      return
    }
    this.showCompletions([])
  }

  private showCompletions(rows: ReadonlyArray<readonly [string, string]>) {
    const shown = rows.slice(0, Math.max(1, Math.min(8, this.renderer.height - 12)))
    const lines: Array<Line> = [
      ...shown.map(([name, description], i): Line => [
        { text: i === 0 ? " ▶ " : "   ", fg: color.accent },
        { text: name, fg: i === 0 ? color.accent : color.text, bold: i === 0 },
        { text: description ? ` ${description}` : "", fg: color.dim },
      ]),
      [{ text: "   Tab completes the first", fg: color.border }],
    ]
    this.completion.content = styled(lines)
    this.completion.height = lines.length
    this.completion.visible = rows.length > 0
  }

  private complete(): boolean {
    const first = this.completions[0]
    if (!first) return false
    const text = this.prompt.plainText
    const next = first.startsWith("@") ? text.replace(/@\S*$/, `${first} `) : `${first} `
    this.prompt.setText(next)
    this.prompt.gotoBufferEnd?.()
    return true
  }

  private async submit() {
    const text = this.prompt.plainText
    if (!text.trim()) return
    const live = this.live
    // A pending question takes typed text as its free answer.
    if (this.question() && live) {
      this.prompt.setText("")
      return this.answerQuestion([text.trim()])
    }
    this.history.push(text)
    this.historyIndex = -1
    this.prompt.setText("")
    const command = /^\/(\S+)\s*(.*)$/s.exec(text.trim())
    if (command && LOCAL_COMMANDS.some((c) => c.name === command[1])) return this.local(command[1]!, command[2] ?? "")
    if (!live) return
    try {
      await call(live.client.v2.session.prompt({ sessionID: live.sessionID, prompt: { text } } as never))
    } catch (cause) {
      this.notify(`prompt refused: ${cause instanceof Error ? cause.message : String(cause)}`)
    }
  }

  private async local(name: string, args: string) {
    const live = this.live
    switch (name) {
      case "exit":
        return this.exit(0)
      case "help":
        return this.showHelp()
      case "sessions":
        return this.showSessions()
      case "new":
        return this.guard(async () => this.openSession((await this.createSession()).id))
      case "rename":
        if (!live) return
        if (args.trim())
          return this.guard(() =>
            done(live.client.v2.session.update({ sessionID: live.sessionID, title: args.trim() })),
          )
        return this.picker.show({
          title: "rename session",
          items: [],
          input: { initial: live.info.title },
          onText: (title) =>
            void this.guard(() => done(live.client.v2.session.update({ sessionID: live.sessionID, title }))),
        })
      case "agent":
        return this.showAgents()
      case "model":
        return this.showModels()
      case "compact":
        if (!live) return
        return this.guard(
          () => done(live.client.v2.session.compact({ sessionID: live.sessionID } as never)),
          "compacting…",
        )
      case "prune":
        if (!live) return
        return this.confirm(
          "prune the whole session",
          [
            [
              {
                text: "Every tool output and reasoning text of this session is removed for good (the calls stay, marked removed).",
                fg: color.warn,
              },
            ],
          ],
          () =>
            this.guard(async () => {
              const summary = await call(
                live.client.v2.session.prune({ sessionID: live.sessionID, types: ["tool", "reasoning"] }),
              )
              this.notify(`pruned ${summary.data.items} items, ${bytes(summary.data.bytes)}`)
            }),
        )
      case "erase":
        if (!live) return
        return this.confirm(
          "erase superseded content",
          [
            [
              {
                text: "Corrected, retracted and pruned content of this session is erased from the journal: its history can no longer show it.",
                fg: color.warn,
              },
            ],
          ],
          () =>
            this.guard(async () => {
              await call(live.client.v2.session.erase({ sessionID: live.sessionID }))
              this.notify("erased")
            }),
        )
      case "revert":
        return this.showRevert()
    }
  }

  // ── actions ─────────────────────────────────────────────────────────────

  private async guard(action: () => Promise<unknown>, pending?: string) {
    if (pending) this.notify(pending)
    try {
      await action()
      if (pending) this.notify("")
    } catch (cause) {
      this.notify(`failed: ${cause instanceof Error ? cause.message : String(cause)}`)
    }
  }

  private confirm(title: string, body: ReadonlyArray<Line>, action: () => void) {
    this.picker.show({
      title: `${title}?`,
      body,
      items: [
        { id: "no", label: "No, keep it" },
        { id: "yes", label: `Yes, ${title}` },
      ],
      hint: "y confirms · n / Esc cancels",
      keys: (key) => {
        if (key.name === "y") {
          this.picker.close()
          action()
          return true
        }
        if (key.name === "n") return (this.picker.close(), true)
        return false
      },
      onChoose: (item) => item.id === "yes" && action(),
    })
  }

  private async answerPermission(reply: "once" | "always" | "reject", message?: string) {
    const ask = this.permission()
    const live = this.live
    if (!ask || !live) return
    await this.guard(() =>
      done(
        live.client.v2.session.permission.reply({
          sessionID: live.sessionID,
          requestID: ask.id,
          reply,
          ...(message ? { message } : {}),
        }),
      ),
    )
  }

  private async answerQuestion(answer: Array<string>) {
    const question = this.question()
    const live = this.live
    if (!question || !live) return
    this.questionAnswers.push(answer)
    if (this.questionAnswers.length < question.questions.length) return this.drawCard()
    const answers = this.questionAnswers
    this.questionAnswers = []
    await this.guard(() =>
      done(
        live.client.v2.session.question.reply({
          sessionID: live.sessionID,
          requestID: question.id,
          questionV2Reply: { answers },
        }),
      ),
    )
  }

  private async showSessions() {
    const client = this.conn!.client
    let sessions: Array<SessionV2Info> = []
    try {
      sessions = [...(await call(client.v2.session.list({ order: "desc", limit: 200 }))).data]
    } catch (cause) {
      return this.notify(`cannot list sessions: ${cause instanceof Error ? cause.message : String(cause)}`)
    }
    const sizes = new Map<string, number>()
    await call(client.v2.storage.stats({}))
      .then((stats) => {
        for (const s of (stats.data as { sessions?: ReadonlyArray<{ sessionID: string; bytes: number }> }).sessions ??
          [])
          sizes.set(s.sessionID, s.bytes)
      })
      .catch(() => undefined)
    const items: Array<PickerItem> = sessions.map((s) => ({
      id: s.id,
      label: `${s.id === this.live?.sessionID ? "● " : ""}${s.title || "(untitled)"}`,
      detail: `${s.location.directory}  ${s.status}  ${ago(s.time.updated)}${sizes.has(s.id) ? `  ${bytes(sizes.get(s.id)!)}` : ""}`,
    }))
    this.picker.show({
      title: "sessions",
      items,
      filter: true,
      hint: "Enter open · Ctrl+N new · Ctrl+R rename · Ctrl+D delete · Ctrl+F fork · type to search · Esc close",
      onChoose: (item) => void this.guard(() => this.openSession(item.id)),
      keys: (key, current) => {
        if (!key.ctrl) return false
        if (key.name === "n") {
          this.picker.close()
          void this.local("new", "")
          return true
        }
        if (!current) return false
        if (key.name === "r") {
          this.picker.show({
            title: "rename session",
            items: [],
            input: { initial: sessions.find((s) => s.id === current.id)?.title ?? "" },
            onText: (title) => void this.guard(() => done(client.v2.session.update({ sessionID: current.id, title }))),
          })
          return true
        }
        if (key.name === "d") {
          this.confirm(
            `delete "${current.label}"`,
            [[{ text: "The session, its messages and its history are deleted for good.", fg: color.warn }]],
            () =>
              void this.guard(async () => {
                await done(client.v2.session.delete({ sessionID: current.id }))
                if (current.id === this.live?.sessionID) await this.openSession(await this.latestSession())
                this.notify(`deleted ${current.label}`)
              }),
          )
          return true
        }
        if (key.name === "f") {
          this.picker.close()
          void this.guard(async () =>
            this.openSession((await call(client.v2.session.fork({ sessionID: current.id }))).data.id),
          )
          return true
        }
        return false
      },
    })
  }

  private async showAgents() {
    const live = this.live
    if (!live) return
    try {
      const agents = (await call(live.client.v2.agent.list({ directory: live.info.location.directory } as never))) as {
        data: ReadonlyArray<{ id: string; description?: string; mode: string; hidden: boolean }>
      }
      this.picker.show({
        title: "agent",
        filter: true,
        items: agents.data
          .filter((a) => !a.hidden && a.mode !== "subagent")
          .map((a) => ({ id: a.id, label: a.id, detail: a.description ?? a.mode })),
        onChoose: (item) =>
          void this.guard(() =>
            done(live.client.v2.session.switchAgent({ sessionID: live.sessionID, agent: item.id } as never)),
          ),
      })
    } catch (cause) {
      this.notify(`cannot list agents: ${cause instanceof Error ? cause.message : String(cause)}`)
    }
  }

  private async showModels() {
    const live = this.live
    if (!live) return
    try {
      const directory = live.info.location.directory
      const [models, providers] = await Promise.all([
        call(live.client.v2.model.list({ directory } as never)) as Promise<{
          data: ReadonlyArray<{ id: string; providerID: string; name: string; enabled: boolean }>
        }>,
        call(live.client.v2.provider.list({ directory } as never)) as Promise<{
          data: ReadonlyArray<{ id: string; env?: string; disabled?: boolean }>
        }>,
      ])
      const env = new Map(providers.data.map((p) => [p.id, p.env]))
      this.picker.show({
        title: "model",
        filter: true,
        items: models.data.map((m) => {
          const key = env.get(m.providerID)
          const missing = !m.enabled ? (key ? `needs ${key}` : `provider ${m.providerID} is disabled`) : undefined
          return {
            id: `${m.providerID}/${m.id}`,
            label: `${m.providerID}/${m.id}`,
            // The listing does not say whether the server has the key: the variable is named, and a switch the
            // server refuses for a missing key says so in the banner.
            detail: `${m.name}${key ? ` · key ${key}` : ""}`,
            ...(missing ? { disabled: missing } : {}),
          }
        }),
        onChoose: (item) => {
          const slash = item.id.indexOf("/")
          void this.guard(() =>
            done(
              live.client.v2.session.switchModel({
                sessionID: live.sessionID,
                model: { providerID: item.id.slice(0, slash), id: item.id.slice(slash + 1) },
              } as never),
            ),
          )
        },
      })
    } catch (cause) {
      this.notify(`cannot list models: ${cause instanceof Error ? cause.message : String(cause)}`)
    }
  }

  /** The staged revert (`staged`, as the stage call answered it, else the session's), to commit or clear. */
  private showRevert(staged?: SessionV2Info["revert"]) {
    const live = this.live
    const revert = staged ?? live?.info.revert
    if (!live || !revert) return this.notify("no revert is staged: select a message (Tab, ↑↓) and press v")
    const files = (revert.files ?? []).map((f): Line => [
      { text: `  ${f.status.padEnd(9)}`, fg: f.status === "deleted" ? color.remove : color.add },
      { text: f.path, fg: color.text },
      { text: `  +${f.additions} -${f.deletions}`, fg: color.dim },
    ])
    this.picker.show({
      title: "staged revert",
      body: [
        [{ text: "Files restored by the staged revert:", fg: color.text }],
        ...(files.length ? files : [[{ text: "  (none)", fg: color.dim }]]),
      ],
      items: [
        { id: "commit", label: "Commit: the hidden messages are removed for good" },
        { id: "clear", label: "Clear: undo the revert, files and messages come back" },
      ],
      onChoose: (item) =>
        void this.guard(() =>
          item.id === "commit"
            ? done(live.client.v2.session.revert.commit({ sessionID: live.sessionID }))
            : done(live.client.v2.session.revert.clear({ sessionID: live.sessionID })),
        ),
    })
  }

  private showHelp() {
    this.picker.show({
      title: "keys",
      items: helpItems(this.commands),
      filter: true,
      hint: "type to search · ↑↓ scroll · Esc closes",
    })
  }

  /** The selectable entries of the transcript: messages, and the tool and reasoning items inside them. */
  private entries(): Array<{ id: string; message: SessionMessage }> {
    const out: Array<{ id: string; message: SessionMessage }> = []
    for (const message of this.live?.messages ?? []) {
      if (message.type === "assistant") {
        for (const item of message.content) if (item.type !== "text") out.push({ id: item.id, message })
        if (!message.content.some((i) => i.type !== "text")) out.push({ id: message.id, message })
      } else out.push({ id: message.id, message })
    }
    return out
  }

  private select(delta: number) {
    const entries = this.entries()
    if (entries.length === 0) return
    const at = entries.findIndex((e) => e.id === this.selected)
    const next = at === -1 ? entries.length - 1 : Math.max(0, Math.min(entries.length - 1, at + delta))
    const previous = this.selected
    this.selected = entries[next]!.id
    this.redrawMessage(previous)
    this.redrawMessage(this.selected)
    const row = this.rows.get(entries[next]!.message.id)
    if (row) this.scroll.scrollChildIntoView?.(row.id)
  }

  private transcriptKey(key: KeyEvent): boolean {
    const live = this.live
    if (!live) return false
    const entry = this.entries().find((e) => e.id === this.selected)
    const name = key.name
    if (name === "up" || name === "k") return (this.select(-1), true)
    if (name === "down" || name === "j") return (this.select(1), true)
    if (name === "pageup") return (this.scroll.scrollBy(-0.5, "viewport"), true)
    if (name === "pagedown") return (this.scroll.scrollBy(0.5, "viewport"), true)
    if (!entry) return false
    const message = entry.message
    const client = live.client.v2.session
    const sessionID = live.sessionID
    if (name === "return" || name === "space") {
      if (this.expanded.has(entry.id)) this.expanded.delete(entry.id)
      else this.expanded.add(entry.id)
      this.redrawMessage(entry.id)
      return true
    }
    if (name === "x" && (message.type === "user" || message.type === "synthetic") && !message.retracted) {
      this.confirm(
        "retract this message",
        [
          [
            {
              text: "The model no longer sees it: a placeholder stands in its place. Its text stays in the journal until erased.",
              fg: color.warn,
            },
          ],
        ],
        () => void this.guard(() => done(client.retract({ sessionID, messageID: message.id } as never))),
      )
      return true
    }
    if (name === "p" && entry.id !== message.id) {
      this.confirm(
        "remove this item",
        [
          [
            {
              text: "This tool output or reasoning is removed for good (the call stays, marked removed).",
              fg: color.warn,
            },
          ],
        ],
        () =>
          void this.guard(() =>
            done(client.removeItem({ sessionID, messageID: message.id, itemID: entry.id } as never)),
          ),
      )
      return true
    }
    if (name === "f") {
      void this.guard(async () => {
        const forked = await call(client.fork({ sessionID, messageID: message.id }))
        await this.openSession(forked.data.id)
        this.notify(`forked from ${sessionID} at ${message.id}`)
      })
      return true
    }
    if (name === "v") {
      this.confirm(
        "revert to before this message",
        [
          [
            {
              text: "This message and everything after it are hidden, and files the session's tools changed since are restored. Commit or clear it with /revert.",
              fg: color.warn,
            },
          ],
        ],
        () =>
          void this.guard(async () => {
            const staged = await call(client.revert.stage({ sessionID, messageID: message.id }))
            this.showRevert(staged.data)
          }),
      )
      return true
    }
    return false
  }

  // ── keys ────────────────────────────────────────────────────────────────

  private key(key: KeyEvent) {
    if (key.ctrl && key.name === "c") {
      key.preventDefault()
      if (this.ctrlC) return void this.exit(0)
      this.ctrlC = true
      if (this.picker.open) this.picker.close()
      this.prompt.setText("")
      this.drawStatus()
      return
    }
    if (this.ctrlC) {
      this.ctrlC = false
      this.drawStatus()
    }
    if (this.picker.open) {
      key.preventDefault()
      this.picker.key(key)
      return
    }
    const empty = this.prompt.plainText === ""
    const promptFocused = this.focus === "prompt"
    if (key.name === "escape") {
      key.preventDefault()
      if (this.focus === "transcript") return this.focusPrompt()
      const live = this.live
      if (live && live.status !== "idle") {
        void this.guard(() => done(live.client.v2.session.interrupt({ sessionID: live.sessionID })))
        this.notify("interrupted")
      }
      return
    }
    if (key.name === "tab" && !key.ctrl) {
      key.preventDefault()
      if (promptFocused && this.complete()) return
      if (promptFocused) {
        this.focus = "transcript"
        this.prompt.blur()
        // Entering the transcript starts at its newest entry.
        const previous = this.selected
        this.selected = undefined
        this.redrawMessage(previous)
        this.select(0)
      } else this.focusPrompt()
      this.drawStatus()
      return
    }
    if (key.ctrl && key.name === "s") return (key.preventDefault(), void this.showSessions())
    if (key.ctrl && key.name === "n" && promptFocused && empty)
      return (key.preventDefault(), void this.local("new", ""))
    if (key.ctrl && key.name === "d" && this.question()) {
      key.preventDefault()
      const q = this.question()!
      const live = this.live!
      this.questionAnswers = []
      void this.guard(() =>
        done(live.client.v2.session.question.reject({ sessionID: live.sessionID, requestID: q.id })),
      )
      return
    }
    if ((empty || !promptFocused) && !key.ctrl && !key.meta) {
      if (this.permission()) {
        const reply = { o: "once", a: "always", r: "reject" } as const
        if (key.sequence === "R") {
          key.preventDefault()
          this.picker.show({
            title: "reject with a message for the model",
            items: [],
            input: {},
            onText: (message) => void this.answerPermission("reject", message),
          })
          return
        }
        const chosen = reply[key.sequence as keyof typeof reply]
        if (chosen) return (key.preventDefault(), void this.answerPermission(chosen))
      }
      const question = this.question()
      if (question && /^[1-9]$/.test(key.sequence)) {
        const q = question.questions[this.questionAnswers.length]
        const option = q?.options[Number(key.sequence) - 1]
        if (option) return (key.preventDefault(), void this.answerQuestion([option.label]))
      }
      if (key.sequence === "?") return (key.preventDefault(), this.showHelp())
    }
    if (!promptFocused) {
      if (this.transcriptKey(key)) key.preventDefault()
      return
    }
    // History: up on the first line, down on the last.
    if ((key.name === "up" || key.name === "down") && !key.ctrl && this.history.length > 0) {
      const text = this.prompt.plainText
      const line = this.prompt.logicalCursor.row
      const lines = text.split("\n").length
      if (
        (key.name === "up" && line === 0) ||
        (key.name === "down" && line === lines - 1 && this.historyIndex !== -1)
      ) {
        key.preventDefault()
        if (key.name === "up")
          this.historyIndex = this.historyIndex === -1 ? this.history.length - 1 : Math.max(0, this.historyIndex - 1)
        else this.historyIndex = this.historyIndex + 1 >= this.history.length ? -1 : this.historyIndex + 1
        this.prompt.setText(this.historyIndex === -1 ? "" : this.history[this.historyIndex]!)
      }
    }
  }

  /** Restores the terminal, closes the streams and resolves `exited`. */
  async exit(code: number) {
    if (this.exiting) return
    this.exiting = true
    clearTimeout(this.drawTimer)
    this.unsubscribe?.()
    this.live?.close()
    this.renderer.destroy()
    this.resolveExit(code)
  }
}

export { KEYS }
