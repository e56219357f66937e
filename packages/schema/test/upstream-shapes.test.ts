import type * as Up from "upstream-sdk/v2/types"
import { describe, expect, it } from "vitest"
import {
  AgentInfo,
  CommandInfo,
  LocationInfo,
  ModelInfo,
  PermissionRequest,
  ProviderInfo,
  SessionDurableEvent,
  SessionInfo,
  SessionMessage,
  SkillInfo,
} from "../src/index.ts"

/**
 * The shapes this host shares with upstream OpenCode v2 must be assignable to upstream's published types
 * (`@opencode-ai/sdk` 1.19.3), extra fields allowed. Checked by the compiler: `bun run typecheck` fails when
 * a shared shape drifts. Upstream's arrays are mutable, Schema's readonly, hence `Loose`.
 */
type Loose<T> =
  T extends ReadonlyArray<infer E> ? Array<Loose<E>> : T extends object ? { -readonly [K in keyof T]: Loose<T[K]> } : T

type Assignable<A, B> = [Loose<A>] extends [B] ? true : false
const holds = <T extends true>(_: T) => true

type Ours<S extends { readonly Encoded: unknown }> = S["Encoded"]
type OurV2Event = import("../src/index.ts").V2Event
type OurDurable = import("../src/index.ts").SessionDurableEvent
type OurEvent<T extends string> = Extract<OurV2Event, { type: T }>
type SharedEventTypes = Extract<Up.V2Event["type"], OurV2Event["type"]>

describe("the shared shapes", () => {
  it("are assignable to upstream's published v2 types", () => {
    holds<Assignable<Ours<typeof SessionMessage>, Up.SessionMessage>>(true)
    holds<Assignable<Ours<typeof SessionInfo>, Up.SessionV2Info>>(true)
    holds<Assignable<Ours<typeof LocationInfo>, Up.LocationInfo>>(true)
    holds<Assignable<Ours<typeof AgentInfo>, Up.AgentV2Info>>(true)
    holds<Assignable<Ours<typeof ModelInfo>, Up.ModelV2Info>>(true)
    holds<Assignable<Ours<typeof ProviderInfo>, Up.ProviderV2Info>>(true)
    holds<Assignable<Ours<typeof CommandInfo>, Up.CommandV2Info>>(true)
    holds<Assignable<Ours<typeof SkillInfo>, Up.SkillV2Info>>(true)
    holds<Assignable<Ours<typeof PermissionRequest>, Up.PermissionV2Request>>(true)
    holds<Assignable<Extract<OurDurable, { type: Up.SessionDurableEvent["type"] }>, Up.SessionDurableEvent>>(true)
    // Every event type both declare: ours is assignable to upstream's member of that type.
    holds<
      Assignable<
        { [T in SharedEventTypes]: OurEvent<T> },
        { [T in SharedEventTypes]: Extract<Up.V2Event, { type: T }> }
      >
    >(true)
    expect(SessionDurableEvent.ast).toBeDefined()
  })
})
