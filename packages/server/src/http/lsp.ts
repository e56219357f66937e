import { Lsp } from "@opencode-ai/core"
import { Api } from "@opencode-ai/protocol"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

/** `v2.lsp.status`: every language server the host started or could start, with its status. */
export const LspHandlers = HttpApiBuilder.group(
  Api,
  "v2.lsp",
  Effect.fn(function* (handlers) {
    const lsp = yield* Lsp
    return handlers.handle("status", () => Effect.map(lsp.status(), (servers) => ({ data: servers })))
  }),
)
