import { Context, Effect, Layer } from "effect"
import type { OpenStream } from "../sse.ts"

/**
 * The event streams open right now. Its layer ends them (after what each has queued) when the server
 * stops, before the listener waits for in-flight requests, so a stream never holds the stop up.
 */
export class OpenStreams extends Context.Service<OpenStreams, Set<OpenStream>>()(
  "@opencode-ai/server/http/OpenStreams",
) {
  static readonly layer = Layer.effect(
    OpenStreams,
    Effect.acquireRelease(
      Effect.sync(() => new Set<OpenStream>()),
      (open) =>
        Effect.sync(() => {
          for (const stream of [...open]) stream.finish()
        }),
    ),
  )
}
