/**
 * The plugin API of the opencode2 host. A plugin module's default export is a {@link Plugin}: either the
 * Promise flavour `{ id, setup(ctx) }` or the Effect flavour `{ id, effect(ctx) }`.
 */
import type { EffectPlugin } from "./effect.ts"
import type { PromisePlugin } from "./promise.ts"

export type Plugin = PromisePlugin | EffectPlugin

/** Identity helper that types a plugin definition. */
export const definePlugin = <P extends Plugin>(plugin: P): P => plugin

export * from "./error.ts"
export type * from "./effect.ts"
export type * from "./event.ts"
export * from "./hook.ts"
export * from "./message.ts"
export type * from "./promise.ts"
export * from "./request.ts"
export * from "./session.ts"
export * from "./tool.ts"
