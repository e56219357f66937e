import type { ContextEvent } from "@opencode-ai/plugin"
import type { Effect } from "effect"
import type { HookError, Hooks } from "../hooks/hooks.ts"
import type { SystemOrigin, SystemPart } from "../domain/model-request.ts"

/**
 * Provenance of system parts across `session.context` callbacks: origins follow the part object the host
 * handed out, never the `id` a plugin can write. (docs/architecture.md, "System-part provenance follows
 * objects, not ids")
 */
export class SystemProvenance {
  /** The record of every part object this request handed out. */
  private readonly records = new WeakMap<object, { readonly id: string; readonly origin: SystemOrigin }>()
  /** Every id issued in this request, so a new part can never take a known part's id. */
  private readonly issued = new Set<string>()
  private counter = 0

  /** Tracks the host's parts (ids made unique if the host ever built duplicates) and returns fresh copies. */
  adopt(system: ReadonlyArray<SystemPart>): Array<SystemPart> {
    return system.map((part) => this.issue(this.unique(part.id), part.text, part.origin, extras(part)))
  }

  /**
   * Settles the array a plugin's callback left behind (`value` may be anything the plugin assigned) and
   * returns the fresh, tracked array for the next callback.
   */
  settle(value: unknown, pluginID: string): Array<SystemPart> {
    const items = Array.isArray(value) ? (value as Array<unknown>) : []
    const kept = new Set<object>()
    // First the parts the host knows, so they keep their ids whatever position new parts take.
    for (const item of items) {
      if (typeof item === "object" && item !== null && this.records.has(item) && !kept.has(item)) kept.add(item)
    }
    const claimed = new Set<object>()
    const settled: Array<SystemPart> = []
    for (const item of items) {
      if (typeof item !== "object" || item === null) continue
      const raw = item as { id?: unknown; text?: unknown }
      const text = typeof raw.text === "string" ? raw.text : String(raw.text ?? "")
      const record = kept.has(item) && !claimed.has(item) ? this.records.get(item) : undefined
      if (record) {
        claimed.add(item)
        settled.push(this.issue(record.id, text, record.origin, extras(item)))
        continue
      }
      const origin: SystemOrigin = { type: "plugin", pluginID }
      const wanted = typeof raw.id === "string" && raw.id.length > 0 && !this.issued.has(raw.id) ? raw.id : undefined
      settled.push(this.issue(wanted ?? this.fresh(pluginID), text, origin, extras(item)))
    }
    return settled
  }

  /** A host part keeps its id unless the host itself built a duplicate (the second becomes `<id>#2`). */
  private unique(id: string) {
    let candidate = id
    for (let n = 2; this.issued.has(candidate); n++) candidate = `${id}#${n}`
    return candidate
  }

  private fresh(owner: string) {
    let id: string
    do id = `plugin:${owner}:${++this.counter}`
    while (this.issued.has(id))
    return id
  }

  private issue(id: string, text: string, origin: SystemOrigin, more: Extras): SystemPart {
    this.issued.add(id)
    const part: SystemPart = { type: "text", id, text, ...more, origin: { ...origin } }
    this.records.set(part, { id, origin })
    return part
  }
}

type Extras = Pick<SystemPart, "cache" | "metadata">

/** What a part may carry besides its text, kept when well-formed (a plugin may set it on any part). */
const extras = (item: object): Extras => {
  const raw = item as { cache?: unknown; metadata?: unknown }
  return {
    ...(typeof raw.cache === "boolean" ? { cache: raw.cache } : {}),
    ...(typeof raw.metadata === "object" && raw.metadata !== null && !Array.isArray(raw.metadata)
      ? { metadata: { ...(raw.metadata as Record<string, unknown>) } }
      : {}),
  }
}

/**
 * Runs the `session.context` hook on `event` (already a copy), settling system-part provenance after
 * every plugin's callback (see {@link SystemProvenance}). On return `event.system` is the settled array.
 */
export const runContextHooks = (hooks: Hooks["Service"], event: ContextEvent): Effect.Effect<void, HookError> => {
  const provenance = new SystemProvenance()
  event.system = provenance.adopt(Array.isArray(event.system) ? event.system : [])
  return hooks.run("context", event, {
    each: (pluginID) => {
      event.system = provenance.settle(event.system, pluginID)
    },
  })
}
