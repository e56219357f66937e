import { spawn, type ChildProcess } from "node:child_process"
import { pathToFileURL } from "node:url"
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from "vscode-languageserver-protocol/node.js"
import type { Diagnostic, PublishDiagnosticsParams } from "vscode-languageserver-protocol"
import { languageId, type ServerSpec } from "./servers.ts"

/** Bytes of a server's stderr kept to explain why it exited. */
const STDERR_TAIL = 2_000
/**
 * After a file's diagnostics arrive, how long to wait for a follow-up that replaces them (servers publish
 * syntax first, then types); longer for a file just opened, whose project may still be loading.
 */
const SETTLE_MS = 300
const FIRST_SETTLE_MS = 1_500

/** What waiting for one file's diagnostics came to. */
export type DiagnosticsWait =
  | { readonly _tag: "published"; readonly diagnostics: ReadonlyArray<Diagnostic> }
  | { readonly _tag: "timeout" }
  | { readonly _tag: "exited"; readonly reason: string }

/**
 * One running language server: a child process in its own process group spoken to over stdio with
 * JSON-RPC. It keeps the files it was told about (their version and text) and the last diagnostics
 * published for each. The server is told the host's pid (`processId`), so it exits when the host dies,
 * even by SIGKILL; its stdin closing says the same.
 */
export class LspClient {
  private readonly files = new Map<string, { version: number; text: string }>()
  private readonly published = new Map<string, ReadonlyArray<Diagnostic>>()
  private readonly listeners = new Map<string, Set<() => void>>()
  private readonly exitListeners = new Set<(reason: string) => void>()
  private stderr = ""
  /** Why the server ended, once it has. */
  exited: string | undefined

  private constructor(
    readonly spec: ServerSpec,
    readonly root: string,
    private readonly child: ChildProcess,
    private readonly connection: MessageConnection,
  ) {}

  /** The server's pid. */
  get pid(): number | undefined {
    return this.child.pid
  }

  /**
   * Starts the server in `root` and completes the `initialize` handshake, failing when the process cannot
   * start, exits, or does not answer within `timeoutMs`.
   */
  static async start(spec: ServerSpec, root: string, timeoutMs: number): Promise<LspClient> {
    const child = spawn(spec.command[0]!, spec.command.slice(1), {
      cwd: root,
      env: { ...process.env, ...spec.env },
      stdio: ["pipe", "pipe", "pipe"],
      // Its own group, so stopping it also stops what it started (tsserver under typescript-language-server).
      detached: true,
    })
    const connection = createMessageConnection(
      new StreamMessageReader(child.stdout!),
      new StreamMessageWriter(child.stdin!),
    )
    const client = new LspClient(spec, root, child, connection)
    child.stderr!.on("data", (chunk: Buffer) => {
      client.stderr = (client.stderr + chunk.toString("utf8")).slice(-STDERR_TAIL)
    })
    // Writing to a server that just died must not take the host down.
    child.stdin!.on("error", () => {})
    const spawned = new Promise<void>((resolveSpawn, rejectSpawn) => {
      child.once("spawn", () => resolveSpawn())
      child.once("error", (error) => rejectSpawn(error))
    })
    child.once("exit", (code, signal) => {
      const tail = client.stderr.trim().split("\n").slice(-3).join(" | ")
      client.end(`exited (${signal ?? `code ${code}`})${tail ? `: ${tail}` : ""}`)
    })
    connection.onNotification("textDocument/publishDiagnostics", (params: PublishDiagnosticsParams) => {
      client.published.set(params.uri, params.diagnostics)
      for (const listener of client.listeners.get(params.uri) ?? []) listener()
    })
    // Servers ask for configuration and register capabilities; answer so they go on.
    connection.onRequest("workspace/configuration", (params: { items?: ReadonlyArray<unknown> }) =>
      (params.items ?? []).map(() => spec.initialization ?? null),
    )
    connection.onRequest("client/registerCapability", () => null)
    connection.onRequest("window/workDoneProgress/create", () => null)
    connection.onError(() => {})
    connection.listen()
    try {
      await spawned
      const initialized = connection.sendRequest("initialize", {
        processId: process.pid,
        rootUri: pathToFileURL(root).href,
        workspaceFolders: [{ uri: pathToFileURL(root).href, name: root }],
        initializationOptions: spec.initialization ?? {},
        capabilities: {
          textDocument: {
            synchronization: { didSave: false, dynamicRegistration: false },
            publishDiagnostics: { relatedInformation: false, versionSupport: true },
            hover: { contentFormat: ["markdown", "plaintext"] },
            definition: { linkSupport: false },
            references: {},
            documentSymbol: { hierarchicalDocumentSymbolSupport: true },
          },
          workspace: { configuration: true, workspaceFolders: true, symbol: {} },
        },
      })
      await client.bounded(initialized, timeoutMs, "initialize")
      await connection.sendNotification("initialized", {})
      return client
    } catch (error) {
      client.kill()
      throw new Error(`${spec.name}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  /** Called once when the server ends. */
  onExit(listener: (reason: string) => void): void {
    if (this.exited !== undefined) listener(this.exited)
    else this.exitListeners.add(listener)
  }

  private end(reason: string) {
    if (this.exited !== undefined) return
    this.exited = reason
    this.connection.dispose()
    for (const listener of this.exitListeners) listener(reason)
    this.exitListeners.clear()
    for (const set of this.listeners.values()) for (const listener of set) listener()
  }

  private bounded<A>(promise: Promise<A>, timeoutMs: number, what: string): Promise<A> {
    return new Promise<A>((resolveBounded, rejectBounded) => {
      const timer = setTimeout(() => rejectBounded(new Error(`no answer to ${what} within ${timeoutMs} ms`)), timeoutMs)
      const onExit = (reason: string) => rejectBounded(new Error(reason))
      this.onExit(onExit)
      promise.then(
        (value) => {
          clearTimeout(timer)
          this.exitListeners.delete(onExit)
          resolveBounded(value)
        },
        (error) => {
          clearTimeout(timer)
          this.exitListeners.delete(onExit)
          rejectBounded(error)
        },
      )
    })
  }

  /** Tells the server the file's current text (didOpen the first time, then a full didChange). */
  async sync(path: string, text: string): Promise<void> {
    if (this.exited !== undefined) throw new Error(this.exited)
    const uri = pathToFileURL(path).href
    const known = this.files.get(uri)
    if (known === undefined) {
      this.files.set(uri, { version: 0, text })
      await this.connection.sendNotification("textDocument/didOpen", {
        textDocument: { uri, languageId: languageId(path), version: 0, text },
      })
      return
    }
    if (known.text === text) return
    const version = known.version + 1
    this.files.set(uri, { version, text })
    await this.connection.sendNotification("textDocument/didChange", {
      textDocument: { uri, version },
      contentChanges: [{ text }],
    })
  }

  /** Whether the server was told about `path`. */
  knows(path: string): boolean {
    return this.files.has(pathToFileURL(path).href)
  }

  /**
   * Syncs `text` and waits for the diagnostics the server publishes for `path` afterwards, up to
   * `timeoutMs` (then `timeout`); a follow-up publication within a short pause replaces the first. When
   * the text is what the server already has, its last diagnostics answer at once.
   */
  async diagnostics(path: string, text: string, timeoutMs: number): Promise<DiagnosticsWait> {
    const uri = pathToFileURL(path).href
    const current = this.published.get(uri)
    if (this.files.get(uri)?.text === text && current !== undefined) return { _tag: "published", diagnostics: current }
    const settleMs = this.files.has(uri) ? SETTLE_MS : FIRST_SETTLE_MS
    let listener: () => void = () => {}
    const waited = new Promise<DiagnosticsWait>((resolveWait) => {
      let settle: ReturnType<typeof setTimeout> | undefined
      const deadline = setTimeout(() => finish(), timeoutMs)
      const finish = () => {
        clearTimeout(deadline)
        if (settle) clearTimeout(settle)
        this.listeners.get(uri)?.delete(listener)
        if (this.exited !== undefined) return resolveWait({ _tag: "exited", reason: this.exited })
        // Silence after a change is an answer when the file had diagnostics before: servers publish only
        // what changed (typescript-language-server stays silent when a clean file stays clean).
        const latest = seen || current !== undefined ? this.published.get(uri) : undefined
        resolveWait(latest === undefined ? { _tag: "timeout" } : { _tag: "published", diagnostics: latest })
      }
      let seen = false
      listener = () => {
        if (this.exited !== undefined) return finish()
        seen = true
        if (settle) clearTimeout(settle)
        settle = setTimeout(finish, settleMs)
      }
      let set = this.listeners.get(uri)
      if (!set) this.listeners.set(uri, (set = new Set()))
      set.add(listener)
    })
    try {
      await this.sync(path, text)
    } catch (error) {
      this.listeners.get(uri)?.delete(listener)
      return { _tag: "exited", reason: error instanceof Error ? error.message : String(error) }
    }
    return waited
  }

  /** A request to the server, failing after `timeoutMs` or when the server exits. */
  request<A = unknown>(method: string, params: unknown, timeoutMs: number): Promise<A> {
    if (this.exited !== undefined) return Promise.reject(new Error(this.exited))
    return this.bounded(this.connection.sendRequest<A>(method, params), timeoutMs, method)
  }

  /** Asks the server to shut down and exit, then kills its process group whatever it answered. */
  async stop(timeoutMs = 1_000): Promise<void> {
    if (this.exited === undefined) {
      await this.bounded(this.connection.sendRequest("shutdown"), timeoutMs, "shutdown").catch(() => {})
      await this.connection.sendNotification("exit").catch(() => {})
    }
    this.kill()
  }

  private kill() {
    const pid = this.child.pid
    if (pid === undefined) return
    try {
      process.kill(-pid, "SIGKILL")
    } catch {
      try {
        this.child.kill("SIGKILL")
      } catch {
        // Already gone.
      }
    }
  }
}
