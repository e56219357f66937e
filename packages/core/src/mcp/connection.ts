import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js"
import { isRequestTimeout, loadSdk, type McpSdk } from "./sdk.ts"
import { DEFAULT_MCP_TIMEOUT, MCP_CONNECT_TIMEOUT, type McpServerConfig } from "../config/mcp.ts"

/** The first pause before a failed server is tried again in the background; it doubles per failure. */
export const RETRY_AFTER_MS = 10_000
/** The longest pause between two background attempts for a server that keeps failing. */
export const RETRY_MAX_MS = 5 * 60_000

/** The pause after the `failures`-th failure in a row: 10 s, 20 s, 40 s ... capped at 5 min. */
export const retryDelay = (failures: number) =>
  Math.min(RETRY_MAX_MS, RETRY_AFTER_MS * 2 ** Math.max(0, Math.min(30, failures - 1)))

/** Bytes of a local server's stderr kept to explain why it failed. */
const STDERR_TAIL = 2_000

/** What this host says it is in the MCP handshake. */
const CLIENT_INFO = { name: "opencode2", version: "0.1.0" }

/**
 * The live connection to one configured MCP server. It connects on first use (never at host start), keeps
 * the last tool list the server sent, and drops the connection when the server exits or a request times
 * out, so the next use starts afresh: a crashed or hung server fails only its own calls.
 */
export class McpConnection {
  private client: Client | undefined
  private connecting: Promise<void> | undefined
  private attempted = false
  private failures = 0
  private retryTimer: ReturnType<typeof setTimeout> | undefined
  private stderr = ""
  private closed = false
  /** Why the last connection attempt failed or the connection ended; cleared by a successful connect. */
  error: string | undefined
  /** The tools of the last successful listing. */
  tools: ReadonlyArray<McpTool> = []

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly cwd: string,
  ) {}

  get enabled() {
    return this.config.enabled !== false
  }
  get connected() {
    return this.client !== undefined
  }
  /** Milliseconds a tool call may take. */
  get timeout() {
    return this.config.timeout ?? DEFAULT_MCP_TIMEOUT
  }
  /** Milliseconds starting, the handshake and the tool list may take: a cold start can be slow. */
  get connectTimeout() {
    return Math.max(this.timeout, MCP_CONNECT_TIMEOUT)
  }

  /** Whether a first connection attempt was made (a listing awaits only that one). */
  get started() {
    return this.attempted
  }

  /**
   * Connects unless connected, sharing an attempt under way. After a failure the server is tried again in
   * the background with a doubling pause (`retryDelay`), so no listing (no turn) waits for a broken server
   * again; `retry: true` (a call of one of its tools) tries at once.
   */
  connect(options: { readonly retry: boolean } = { retry: true }): Promise<void> {
    if (!this.enabled || this.client || this.closed) return Promise.resolve()
    if (this.connecting) return this.connecting
    if (!options.retry && this.attempted) return Promise.resolve()
    return this.attempt()
  }

  private attempt(): Promise<void> {
    this.attempted = true
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer)
    this.retryTimer = undefined
    this.connecting = this.open().finally(() => {
      this.connecting = undefined
      if (this.client) this.failures = 0
      else this.scheduleRetry()
    })
    return this.connecting
  }

  private scheduleRetry() {
    if (this.closed || this.retryTimer !== undefined) return
    this.failures++
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined
      if (!this.closed && !this.client && !this.connecting) void this.attempt()
    }, retryDelay(this.failures))
    // A pending retry never keeps the process alive.
    this.retryTimer.unref?.()
  }

  private async open(): Promise<void> {
    let client: Client | undefined
    try {
      const sdk = await loadSdk()
      client =
        this.config.type === "local"
          ? await this.handshake(sdk, this.stdio(sdk))
          : await this.remote(sdk, this.config.url)
      const tools: Array<McpTool> = []
      let cursor: string | undefined
      do {
        const page = await client.listTools(cursor ? { cursor } : {}, { timeout: this.connectTimeout })
        tools.push(...page.tools)
        cursor = page.nextCursor
      } while (cursor)
      // The host shut down while this attempt ran: stop what it started.
      if (this.closed) throw new Error("the host is shutting down")
      this.tools = tools
      this.error = undefined
      this.client = client
      client.onclose = () => {
        if (this.client !== client) return
        this.client = undefined
        this.error = `the server closed the connection${this.stderrTail()}`
        this.scheduleRetry()
      }
    } catch (cause) {
      // A server that answered the handshake but not the tool list is stopped, never left running.
      await client?.close().catch(() => {})
      this.error = `${describe(cause, this.connectTimeout)}${this.stderrTail()}`
    }
  }

  /**
   * A local server runs with `environment` only: the SDK adds its fixed minimal set (HOME, LOGNAME, PATH,
   * SHELL, TERM, USER) and nothing else of the host's environment, so provider keys never reach it.
   */
  private stdio(sdk: McpSdk): Transport {
    if (this.config.type !== "local") throw new Error("not a local server")
    const [command = "", ...args] = this.config.command
    this.stderr = ""
    const transport = new sdk.StdioClientTransport({
      command,
      args,
      env: { ...this.config.environment },
      cwd: this.cwd,
      stderr: "pipe",
    })
    transport.stderr?.on("data", (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString("utf8")).slice(-STDERR_TAIL)
    })
    return transport
  }

  /** Streamable HTTP first; a server that refuses it (an older one) is tried over SSE. */
  private async remote(sdk: McpSdk, url: string): Promise<Client> {
    const headers = this.config.type === "remote" ? (this.config.headers ?? {}) : {}
    try {
      return await this.handshake(
        sdk,
        new sdk.StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
      )
    } catch (streamable) {
      try {
        return await this.handshake(sdk, new sdk.SSEClientTransport(new URL(url), { requestInit: { headers } }))
      } catch {
        throw streamable
      }
    }
  }

  private async handshake(sdk: McpSdk, transport: Transport): Promise<Client> {
    const client = new sdk.Client(CLIENT_INFO)
    try {
      await client.connect(transport, { timeout: this.connectTimeout })
      return client
    } catch (cause) {
      await client.close().catch(() => {})
      throw cause
    }
  }

  private stderrTail() {
    const tail = this.stderr.trim()
    return tail === "" ? "" : ` (stderr: ${tail.slice(-500)})`
  }

  /**
   * Calls one tool, connecting first when needed (after a crash: the reconnect). A timeout drops the
   * connection (a local server is stopped), since a server that stopped answering rarely recovers.
   */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    await this.connect()
    const client = this.client
    if (!client) throw new Error(`MCP server "${this.name}" is not connected: ${this.error ?? "disabled"}`)
    try {
      return (await client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: this.timeout,
        signal,
      })) as CallToolResult
    } catch (cause) {
      if (isRequestTimeout(cause)) {
        this.error = `tool "${tool}" did not answer within ${this.timeout} ms`
        await this.drop(client)
      } else if (!this.client) {
        // The server exited during the call: `onclose` recorded why.
        throw new Error(`MCP server "${this.name}" failed during "${tool}": ${this.error ?? "connection closed"}`)
      }
      throw new Error(`MCP server "${this.name}" failed during "${tool}": ${describe(cause, this.timeout)}`)
    }
  }

  private async drop(client: Client) {
    if (this.client === client) this.client = undefined
    await client.close().catch(() => {})
  }

  /** Ends the connection (stops a local server), also one still being opened; no use reopens it. */
  async close() {
    this.closed = true
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer)
    await this.connecting
    const client = this.client
    this.client = undefined
    if (client) await client.close().catch(() => {})
  }
}

const describe = (cause: unknown, timeout: number): string => {
  if (isRequestTimeout(cause)) return `no answer within ${timeout} ms`
  if (cause instanceof Error) return cause.message
  return String(cause)
}
