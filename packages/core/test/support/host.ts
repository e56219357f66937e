import { Effect, ManagedRuntime } from "effect"
import type { ConfigData, ConfigShape } from "../../src/config/config.ts"
import { HostLayer, type HostOptions, type HostServices } from "../../src/host.ts"
import type { InlinePlugin } from "../../src/plugin/host.ts"
import { tempDb, tempDir } from "./tmp.ts"

export interface TestHostOptions {
  readonly config?: ConfigData
  readonly plugins?: ReadonlyArray<InlinePlugin>
  readonly database?: string
  readonly directory?: string
  readonly autoResume?: boolean
  /** Unset `{env:VAR}` references, as `Config.load` reports them. */
  readonly unsetEnv?: ConfigShape["unsetEnv"]
}

const hostOptions = (options: TestHostOptions, database: string, directory: string): HostOptions => ({
  database,
  config: { data: options.config ?? {}, directory, ...(options.unsetEnv ? { unsetEnv: options.unsetEnv } : {}) },
  ...(options.plugins ? { plugins: options.plugins } : {}),
  ...(options.autoResume !== undefined ? { autoResume: options.autoResume } : {}),
})

/** A whole host (real SQLite file, real plugins, offline provider unless configured) as a runtime. */
export const makeHost = (options: TestHostOptions = {}) => {
  const database = options.database ?? tempDb()
  const directory = options.directory ?? tempDir()
  const runtime = ManagedRuntime.make(HostLayer(hostOptions(options, database, directory)))
  return {
    database,
    directory,
    runtime,
    run: <A, E>(effect: Effect.Effect<A, E, HostServices>) => runtime.runPromise(effect),
    exit: <A, E>(effect: Effect.Effect<A, E, HostServices>) => runtime.runPromiseExit(effect),
    dispose: () => runtime.dispose(),
  }
}

/**
 * A whole host as a layer, with its database file and directory: for a test that names them too
 * (`it.live(name, () => { const host = testHost(); return program.pipe(Effect.provide(host.layer)) })`).
 */
export const testHost = (options: TestHostOptions = {}) => {
  const database = options.database ?? tempDb()
  const directory = options.directory ?? tempDir()
  return { database, directory, layer: HostLayer(hostOptions(options, database, directory)) }
}

/**
 * The same host as a layer, for `@effect/vitest`: `layer(hostLayer(), { excludeTestServices: true })` shares
 * one across a `describe`, `it.live(name, () => program.pipe(Effect.provide(hostLayer())))` builds one for a
 * test. A host runs turns and timers on the real clock, hence `excludeTestServices` / `it.live`.
 */
export const hostLayer = (options: TestHostOptions = {}) => testHost(options).layer
