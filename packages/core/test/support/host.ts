import { Effect, ManagedRuntime } from "effect"
import type { ConfigData, ConfigShape } from "../../src/config/config.ts"
import { HostLayer, type HostServices } from "../../src/host.ts"
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

/** A whole host (real SQLite file, real plugins, offline provider unless configured) as a runtime. */
export const makeHost = (options: TestHostOptions = {}) => {
  const database = options.database ?? tempDb()
  const directory = options.directory ?? tempDir()
  const runtime = ManagedRuntime.make(
    HostLayer({
      database,
      config: { data: options.config ?? {}, directory, ...(options.unsetEnv ? { unsetEnv: options.unsetEnv } : {}) },
      ...(options.plugins ? { plugins: options.plugins } : {}),
      ...(options.autoResume !== undefined ? { autoResume: options.autoResume } : {}),
    }),
  )
  return {
    database,
    directory,
    runtime,
    run: <A, E>(effect: Effect.Effect<A, E, HostServices>) => runtime.runPromise(effect),
    exit: <A, E>(effect: Effect.Effect<A, E, HostServices>) => runtime.runPromiseExit(effect),
    dispose: () => runtime.dispose(),
  }
}
