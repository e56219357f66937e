import { LspServerStatus } from "@opencode-ai/schema"
import { Context, Effect, Layer, Schema } from "effect"
import { readFile } from "node:fs/promises"
import { relative } from "node:path"
import { Config } from "../config/config.ts"
import { LspClient } from "./client.ts"
import { fromProtocol, type DiagnosticsOutcome } from "./diagnostic.ts"
import { availableServers, serverFor, type ServerSpec } from "./servers.ts"

/** A language-server request could not be answered: no server for the file, it failed, or it timed out. */
export class LspError extends Schema.TaggedError<LspError>()("Lsp.Error", {
  message: Schema.String,
}) {}

/** How long `initialize` may take before a starting server is given up. */
export const INITIALIZE_TIMEOUT_MS = 60_000
/** A server unused this long is stopped; the next file touched starts it again. */
export const IDLE_STOP_MS = 5 * 60_000
/** Requests of the `lsp` tool (hover, definition, ...) wait at most this long. */
export const REQUEST_TIMEOUT_MS = 20_000

/** Pause before restarting a server that crashed `crashes` times in a row: at once, then 0.5 s doubling to 30 s. */
export const restartBackoff = (crashes: number): number =>
  crashes <= 1 ? 0 : Math.min(30_000, 500 * 2 ** (crashes - 2))

interface Slot {
  readonly spec: ServerSpec
  readonly root: string
  client?: LspClient
  starting?: Promise<LspClient>
  status: LspServerStatus["status"]
  error?: string
  restarts: number
  crashes: number
  retryAt: number
  lastUsed: number
}

export interface LspShape {
  /**
   * Tells the server of `file` (absolute, inside `directory`) its current text and waits up to `timeoutMs`
   * for its diagnostics; undefined when no server serves the file. Never fails: a slow, starting or
   * crashed server gives an outcome with a note.
   */
  diagnose(directory: string, file: string, timeoutMs: number): Effect.Effect<DiagnosticsOutcome | undefined>
  /** Sends `method` about `file` (synced first) to its server and answers the result. */
  request(directory: string, file: string, method: string, params: unknown): Effect.Effect<unknown, LspError>
  /** `workspace/symbol` on every running server of `directory`. */
  workspaceSymbol(directory: string, query: string): Effect.Effect<ReadonlyArray<unknown>, LspError>
  /** Every server started or startable, with its status. */
  status(): Effect.Effect<ReadonlyArray<LspServerStatus>>
}

/**
 * The language servers (`lsp` in `opencode.json`, docs/lsp.md). Nothing starts with the host: a server
 * starts for a (session directory, server) pair the first time a file it serves is touched, and every
 * session in that directory shares it. A crashed server restarts on next use with backoff; an idle one
 * is stopped; all are stopped with the host.
 */
export class Lsp extends Context.Service<Lsp, LspShape>()("@opencode-ai/core/lsp/Lsp") {
  static readonly layer = Layer.effect(
    Lsp,
    Effect.gen(function* () {
      const config = yield* Config
      const clock = yield* Effect.clockWith(Effect.succeed)
      const now = () => clock.currentTimeMillisUnsafe()
      const servers = new Map<string, ReadonlyArray<ServerSpec>>()
      const slots = new Map<string, Slot>()
      let closed = false

      const serversOf = (directory: string) => {
        let list = servers.get(directory)
        if (list === undefined) servers.set(directory, (list = availableServers(config.data.lsp, directory)))
        return list
      }

      const slotOf = (directory: string, file: string): Slot | undefined => {
        const spec = serverFor(serversOf(directory), file)
        if (spec === undefined) return undefined
        const key = `${directory}\0${spec.name}`
        let slot = slots.get(key)
        if (slot === undefined) {
          slot = { spec, root: directory, status: "available", restarts: 0, crashes: 0, retryAt: 0, lastUsed: now() }
          slots.set(key, slot)
        }
        return slot
      }

      const acquire = (slot: Slot): Promise<LspClient> => {
        slot.lastUsed = now()
        if (slot.client) return Promise.resolve(slot.client)
        if (slot.starting) return slot.starting
        if (closed) return Promise.reject(new Error("the host is stopping"))
        if (now() < slot.retryAt)
          return Promise.reject(new Error(`${slot.spec.name} crashed; restarting in ${slot.retryAt - now()} ms`))
        if (slot.status === "crashed" || slot.status === "failed") slot.restarts++
        slot.status = "starting"
        const starting = LspClient.start(slot.spec, slot.root, INITIALIZE_TIMEOUT_MS).then(
          (client) => {
            slot.starting = undefined
            if (closed) {
              void client.stop()
              throw new Error("the host is stopping")
            }
            slot.client = client
            slot.status = "running"
            slot.error = undefined
            client.onExit((reason) => {
              if (slot.client !== client) return
              slot.client = undefined
              slot.status = slot.status === "stopped" ? "stopped" : "crashed"
              if (slot.status === "crashed") {
                slot.error = reason
                slot.crashes++
                slot.retryAt = now() + restartBackoff(slot.crashes)
              }
            })
            return client
          },
          (error: unknown) => {
            slot.starting = undefined
            slot.status = "failed"
            slot.error = error instanceof Error ? error.message : String(error)
            slot.crashes++
            slot.retryAt = now() + restartBackoff(slot.crashes)
            throw error
          },
        )
        slot.starting = starting
        return starting
      }

      const stopSlot = async (slot: Slot) => {
        const client = slot.client
        slot.status = "stopped"
        slot.client = undefined
        if (client) await client.stop()
      }

      // Idle servers are stopped; the check runs off a timer that never keeps the process alive.
      const idle = setInterval(
        () => {
          for (const slot of slots.values())
            if (slot.client && now() - slot.lastUsed > IDLE_STOP_MS) void stopSlot(slot)
        },
        Math.min(IDLE_STOP_MS, 30_000),
      )
      idle.unref?.()
      yield* Effect.addFinalizer(() =>
        Effect.promise(async () => {
          closed = true
          clearInterval(idle)
          const pending = [...slots.values()].map((slot) => slot.starting?.catch(() => undefined))
          await Promise.all(pending)
          await Promise.all([...slots.values()].map(stopSlot))
        }),
      )

      const within = <A>(promise: Promise<A>, timeoutMs: number): Promise<A | "timeout"> =>
        new Promise((resolveWithin, rejectWithin) => {
          const timer = setTimeout(() => resolveWithin("timeout"), timeoutMs)
          promise.then(
            (value) => {
              clearTimeout(timer)
              resolveWithin(value)
            },
            (error) => {
              clearTimeout(timer)
              rejectWithin(error)
            },
          )
        })

      const diagnose = Effect.fn("Lsp.diagnose")((directory: string, file: string, timeoutMs: number) =>
        Effect.promise(async (): Promise<DiagnosticsOutcome | undefined> => {
          const slot = slotOf(directory, file)
          if (slot === undefined) return undefined
          const shown = relative(directory, file)
          const base = { path: shown, server: slot.spec.name, diagnostics: [] }
          const started = now()
          try {
            const client = await within(acquire(slot), timeoutMs)
            if (client === "timeout")
              return { ...base, note: `${slot.spec.name} is still starting; no diagnostics within ${timeoutMs} ms` }
            const text = await readFile(file, "utf8")
            const left = Math.max(1, timeoutMs - (now() - started))
            const wait = await client.diagnostics(file, text, left)
            if (wait._tag === "timeout")
              return { ...base, note: `${slot.spec.name} did not report diagnostics within ${timeoutMs} ms` }
            if (wait._tag === "exited") return { ...base, note: `${slot.spec.name} ${wait.reason}` }
            return { ...base, diagnostics: wait.diagnostics.map((d) => fromProtocol(shown, d)) }
          } catch (error) {
            return { ...base, note: `${slot.spec.name}: ${error instanceof Error ? error.message : String(error)}` }
          }
        }),
      )

      const fail = (error: unknown) => new LspError({ message: error instanceof Error ? error.message : String(error) })

      const request = Effect.fn("Lsp.request")((directory: string, file: string, method: string, params: unknown) =>
        Effect.tryPromise({
          try: async () => {
            const slot = slotOf(directory, file)
            if (slot === undefined) throw new Error(`no language server for "${relative(directory, file)}"`)
            const client = await acquire(slot)
            // A file the server has not seen yet is loaded with its project first: its diagnostics say when.
            const fresh = !client.knows(file)
            const text = await readFile(file, "utf8")
            if (fresh) await client.diagnostics(file, text, REQUEST_TIMEOUT_MS)
            else await client.sync(file, text)
            return await client.request(method, params, REQUEST_TIMEOUT_MS)
          },
          catch: fail,
        }),
      )

      const workspaceSymbol = Effect.fn("Lsp.workspaceSymbol")((directory: string, query: string) =>
        Effect.tryPromise({
          try: async () => {
            const running = [...slots.values()].filter((slot) => slot.root === directory && slot.client)
            if (running.length === 0)
              throw new Error("no language server is running in this directory yet: ask about a file first")
            const answers = await Promise.all(
              running.map((slot) =>
                slot.client!.request<ReadonlyArray<unknown> | null>("workspace/symbol", { query }, REQUEST_TIMEOUT_MS),
              ),
            )
            return answers.flatMap((answer) => answer ?? [])
          },
          catch: fail,
        }),
      )

      const status = Effect.fn("Lsp.status")(() =>
        Effect.sync((): ReadonlyArray<LspServerStatus> => {
          const out: Array<LspServerStatus> = []
          for (const slot of slots.values()) {
            const pid = slot.client?.pid
            out.push({
              name: slot.spec.name,
              root: slot.root,
              status: slot.status,
              extensions: slot.spec.extensions,
              restarts: slot.restarts,
              ...(pid !== undefined ? { pid } : {}),
              ...(slot.error !== undefined ? { error: slot.error } : {}),
            })
          }
          // Servers found for the host's directory but not started yet.
          for (const spec of serversOf(config.directory))
            if (!slots.has(`${config.directory}\0${spec.name}`))
              out.push({
                name: spec.name,
                root: config.directory,
                status: "available",
                extensions: spec.extensions,
                restarts: 0,
              })
          return out
        }),
      )

      return { diagnose, request, workspaceSymbol, status }
    }),
  )
}
