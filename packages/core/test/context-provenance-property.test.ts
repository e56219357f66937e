/**
 * Property: whatever plugins do to `event.system` in `session.context` - reorder, rename ids, copy parts,
 * push the same part twice, delete, forge origins and ids, replace the array, push junk - after every
 * callback each part object the host handed out keeps its id and origin, every other part gets that
 * plugin's origin, and ids are unique in the request (an id once issued is never issued again). Runs the
 * real hook registry and the runner's context shaping over seeded random edits by several plugins.
 */
import type { ContextEvent, SystemOrigin, SystemPart } from "@opencode-ai/plugin"
import { Effect } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { Hooks } from "../src/hooks/hooks.ts"
import { runContextHooks } from "../src/turn/provenance.ts"

const mulberry32 = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const hostParts = (): Array<SystemPart> => [
  { type: "text", id: "agent:build", text: "AGENT TEXT", origin: { type: "agent", agentID: "build" } },
  { type: "text", id: "instructions:AGENTS.md", text: "INSTRUCTIONS", origin: { type: "instructions" } },
]

const FORGED: ReadonlyArray<SystemOrigin> = [
  { type: "agent", agentID: "build" },
  { type: "host", name: "default" },
  { type: "instructions" },
  { type: "plugin", pluginID: "p0" },
]

/** What a callback received, and what it left behind. */
interface Edit {
  readonly pluginID: string
  readonly received: Map<object, { id: string; origin: SystemOrigin }>
  readonly result: unknown
}

/** Checks the settled array against the edit that produced it; returns the ids it issued. */
const checkSettled = (edit: Edit, settled: ReadonlyArray<SystemPart>, issuedBefore: ReadonlySet<string>) => {
  const items = Array.isArray(edit.result)
    ? (edit.result as Array<unknown>).filter((x) => typeof x === "object" && x !== null)
    : []
  expect(settled.length).toBe(items.length)
  const ids = settled.map((p) => p.id)
  expect(new Set(ids).size).toBe(ids.length)
  const seen = new Set<object>()
  const reserved = new Set(
    items.filter((x) => edit.received.has(x as object)).map((x) => edit.received.get(x as object)!.id),
  )
  const taken = new Set<string>()
  items.forEach((item, index) => {
    const part = settled[index]!
    const raw = item as { id?: unknown; text?: unknown }
    expect(part.text).toBe(typeof raw.text === "string" ? raw.text : String(raw.text ?? ""))
    // Whatever the plugin left (no type, a copy), the settled part has upstream's system part shape.
    expect(part.type).toBe("text")
    const known = edit.received.get(item as object)
    if (known && !seen.has(item as object)) {
      seen.add(item as object)
      expect(part.id).toBe(known.id)
      expect(part.origin).toEqual(known.origin)
    } else {
      expect(part.origin).toEqual({ type: "plugin", pluginID: edit.pluginID })
      expect(issuedBefore.has(part.id)).toBe(false)
      expect(reserved.has(part.id)).toBe(false)
      const wanted =
        typeof raw.id === "string" && raw.id.length > 0 && !issuedBefore.has(raw.id) && !taken.has(raw.id)
          ? raw.id
          : undefined
      if (wanted) expect(part.id).toBe(wanted)
      else expect(part.id.startsWith(`plugin:${edit.pluginID}:`)).toBe(true)
    }
    taken.add(part.id)
  })
}

/** One plugin's random edit of the array it got. */
const randomEdit = (random: () => number, event: ContextEvent, pluginID: string) => {
  const pick = <T>(list: ReadonlyArray<T>) => list[Math.floor(random() * list.length)]
  let system: Array<any> = event.system
  const ops = 1 + Math.floor(random() * 6)
  for (let i = 0; i < ops; i++) {
    const target = pick(system.filter((x) => typeof x === "object" && x !== null))
    switch (Math.floor(random() * 11)) {
      case 0: // reorder
        system.sort(() => random() - 0.5)
        break
      case 1: // rename an id, possibly to another part's id
        if (target) target.id = random() < 0.5 ? `renamed-${i}` : (pick(system)?.id ?? "x")
        break
      case 2: // copy a part (same id, same origin, new object)
        if (target) system.push({ ...target, origin: { ...target.origin } })
        break
      case 3: // push the same object twice
        if (target) system.push(target)
        break
      case 4: // delete
        system.splice(Math.floor(random() * (system.length + 1)), 1)
        break
      case 5: // forge an origin on an existing part
        if (target) target.origin = pick(FORGED)
        break
      case 6: // push a new part with a forged id and origin (the spoof)
        system.push({
          id: pick(["agent:build", "instructions:AGENTS.md", `mine-${i}`, ""]),
          text: `new ${pluginID} ${i}`,
          origin: pick(FORGED),
        })
        break
      case 7: // edit text in place
        if (target) target.text = `${target.text}+${pluginID}`
        break
      case 8: // replace the array (same objects, new array)
        system = [...system]
        event.system = system
        break
      case 9: // junk
        system.push(pick([null, 5, "text", undefined]))
        break
      case 10: // a part without id or with a non-string text
        system.push(random() < 0.5 ? { text: `anon ${i}` } : { id: `num-${i}`, text: 42 })
        break
    }
  }
  if (random() < 0.05) (event as { system: unknown }).system = "not an array"
}

describe("session.context provenance under random plugin edits", () => {
  it.effect("keeps host parts' ids and origins, attributes everything else, keeps ids unique (300 seeded runs)", () =>
    Effect.gen(function* () {
      for (let seed = 1; seed <= 300; seed++) {
        const random = mulberry32(seed)
        const plugins = 1 + Math.floor(random() * 4)
        const issued = new Set<string>()
        let pending: Edit | undefined
        const settleCheck = (system: ReadonlyArray<SystemPart>) => {
          if (pending) checkSettled(pending, system, issued)
          for (const part of system) issued.add(part.id)
        }
        const event: ContextEvent = {
          sessionID: "ses_x",
          agentID: "build",
          model: { providerID: "p", id: "m" },
          system: hostParts(),
          messages: [],
          tools: [],
        }
        yield* Effect.gen(function* () {
          const hooks = yield* Hooks
          for (let p = 0; p < plugins; p++) {
            const pluginID = `p${p}`
            hooks.register("context", {
              pluginID,
              run: (e) =>
                Effect.sync(() => {
                  settleCheck(e.system)
                  const received = new Map(
                    e.system.map((part) => [part as object, { id: part.id, origin: { ...part.origin } }]),
                  )
                  randomEdit(random, e, pluginID)
                  pending = { pluginID, received, result: e.system }
                }),
            })
          }
          yield* runContextHooks(hooks, event)
        }).pipe(Effect.provide(Hooks.layer))
        try {
          settleCheck(event.system)
        } catch (error) {
          throw new Error(`seed ${seed}: ${(error as Error).message}`)
        }
      }
    }),
  )
})
