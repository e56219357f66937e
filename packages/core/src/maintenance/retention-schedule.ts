import { Clock, Duration, Effect, Layer } from "effect"
import { Config, ConfigError, type ConfigData } from "../config/config.ts"
import { parseDuration } from "../config/duration.ts"
import { Retention, type RetentionPolicy } from "./retention.ts"

/** How often retention runs after the run at start. */
const EVERY = Duration.hours(24)

/**
 * `storage.retention` as a policy: undefined when config names none (retention is off by default). A
 * duration that does not parse fails, naming its key; `Config.load` refuses such a file already, this
 * covers a config given in code.
 */
export const retentionPolicy = (
  data: ConfigData,
  path = "config",
): Effect.Effect<RetentionPolicy | undefined, ConfigError> =>
  Effect.gen(function* () {
    const retention = data.storage?.retention
    if (!retention) return undefined
    const policy: { prune?: number; delete?: number; journal?: number } = {}
    for (const key of ["prune", "delete", "journal"] as const) {
      const value = retention[key]
      if (value === undefined) continue
      const ms = parseDuration(value)
      if (ms === undefined) {
        return yield* new ConfigError({
          path,
          message: `storage.retention.${key}: ${JSON.stringify(value)} is not a duration (a whole number and s, m, h, d or w, e.g. "14d")`,
        })
      }
      policy[key] = ms
    }
    return Object.keys(policy).length > 0 ? policy : undefined
  })

/**
 * Runs retention at start and then daily, in the background, while the host runs (its scope). A failed
 * run is logged and the next one happens on schedule. Each run announces itself in the log; what it
 * pruned and deleted is also in the sessions' durable events (`session.next.pruned`, `session.next.deleted`).
 */
export const RetentionSchedule = Layer.effectDiscard(
  Effect.gen(function* () {
    const config = yield* Config
    const policy = yield* retentionPolicy(config.data, config.path)
    if (!policy) return
    const retention = yield* Retention
    const once = retention.run(policy).pipe(
      Effect.tap((s) =>
        Effect.logInfo(
          `retention: pruned ${s.pruned.items} item(s) in ${s.pruned.sessions} session(s), deleted ${s.deleted.sessions} session(s), compacted ${s.journal.events} journal event(s) of ${s.journal.sessions} session(s)`,
        ),
      ),
      Effect.catchCause((cause) => Effect.logError("retention run failed", cause)),
    )
    // Runs start a day apart on the clock, whatever a run takes (a run is not counted into the wait).
    const daily = Effect.gen(function* () {
      const started = yield* Clock.currentTimeMillis
      yield* once
      const left = started + Duration.toMillis(EVERY) - (yield* Clock.currentTimeMillis)
      if (left > 0) yield* Effect.sleep(left)
    })
    yield* Effect.forkScoped(Effect.forever(daily))
  }),
)
