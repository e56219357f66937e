import { Effect, Layer, ManagedRuntime } from "effect"
import { StoreLayer } from "../../src/host.ts"
import { tempDb } from "./tmp.ts"

/** A store on a fresh SQLite file, as a runtime the test drives with `run`. */
export const makeStore = (options: { persist?: boolean; path?: string } = {}) => {
  const path = options.path ?? tempDb()
  const runtime = ManagedRuntime.make(StoreLayer({ path, persist: options.persist ?? true }))
  return {
    path,
    runtime,
    run: <A, E>(effect: Effect.Effect<A, E, Layer.Success<ReturnType<typeof StoreLayer>>>) =>
      runtime.runPromise(effect),
    exit: <A, E>(effect: Effect.Effect<A, E, Layer.Success<ReturnType<typeof StoreLayer>>>) =>
      runtime.runPromiseExit(effect),
    dispose: () => runtime.dispose(),
  }
}

/**
 * A store on a fresh SQLite file as a layer, for `@effect/vitest`: `it.effect(name, () =>
 * program.pipe(Effect.provide(storeLayer())))` builds it for the test and closes it after.
 */
export const storeLayer = (options: { persist?: boolean; path?: string } = {}) =>
  StoreLayer({ path: options.path ?? tempDb(), persist: options.persist ?? true })

/**
 * A store on a fresh SQLite file as a layer, with the file's path: for a test that also opens the file
 * itself (`it.effect(name, () => { const store = testStore(); return program.pipe(Effect.provide(store.layer)) })`).
 */
export const testStore = (options: { persist?: boolean; path?: string } = {}) => {
  const path = options.path ?? tempDb()
  return { path, layer: storeLayer({ ...options, path }) }
}
