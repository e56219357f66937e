import { Effect, Stream } from "effect"
import type { ModelMessage, ModelRequest } from "../domain/model-request.ts"
import { ProviderError, type ProviderClient, type ProviderEvent } from "./provider.ts"

/**
 * The embedded offline provider (`offline/echo`), the default model: deterministic and local. Its prompt
 * syntax (`/think`, `/tool`, `/error`, title requests) is docs/offline-provider.md.
 */
export const OFFLINE_PROVIDER_ID = "offline"
export const OFFLINE_MODEL_ID = "echo"

const textOf = (message: ModelMessage) => message.content.map((part) => ("text" in part ? part.text : "")).join("\n")

const tokens = (text: string) => Math.ceil(text.length / 4)

const chunks = (text: string) => text.match(/\S+\s*|\s+/g) ?? []

export const plan = (request: ModelRequest): { events: Array<ProviderEvent>; error?: string } => {
  const input = tokens(request.system.map((s) => s.text).join("\n") + request.messages.map(textOf).join("\n"))
  const last = request.messages[request.messages.length - 1]
  if (request.kind === "title") {
    const text = last?.role === "user" ? textOf(last) : ""
    const title =
      text
        .split("\n")
        .find((line) => line.trim().length > 0)
        ?.trim() ?? ""
    return {
      events: [
        ...chunks(title).map((text) => ({ type: "text-delta" as const, text })),
        { type: "finish", reason: "stop", usage: { input, output: tokens(title) } },
      ],
    }
  }
  if (last?.role === "tool") {
    const reply = last.content
      .map(
        (result) => `${result.tool} ${result.isError ? "failed" : "returned"}: ${result.output.split("\n")[0] ?? ""}`,
      )
      .join("\n")
    return {
      events: [
        ...chunks(reply).map((text) => ({ type: "text-delta" as const, text })),
        { type: "finish", reason: "stop", usage: { input, output: tokens(reply) } },
      ],
    }
  }
  const prompt = [...request.messages].reverse().find((m) => m.role === "user")
  const lines = prompt ? textOf(prompt).split("\n") : []
  const events: Array<ProviderEvent> = []
  const said: Array<string> = []
  const calls: Array<ProviderEvent> = []
  let output = ""
  for (const line of lines) {
    const command = /^\/(think|tool|error)\s+(.*)$/s.exec(line.trim())
    if (!command) {
      if (line.trim()) said.push(line)
      continue
    }
    const [, name, rest] = command as unknown as [string, string, string]
    if (name === "error") return { events, error: rest }
    if (name === "think") {
      events.push(...chunks(rest).map((text) => ({ type: "reasoning-delta" as const, text })))
      output += rest
      continue
    }
    const space = rest.indexOf(" ")
    const tool = space === -1 ? rest : rest.slice(0, space)
    let parsed: unknown = {}
    if (space !== -1) {
      try {
        parsed = JSON.parse(rest.slice(space + 1))
      } catch {
        parsed = rest.slice(space + 1)
      }
    }
    calls.push({ type: "tool-call", callID: `call_offline_${calls.length + 1}`, tool, input: parsed })
  }
  const reply = said.length > 0 ? `You said: ${said.join("\n")}` : calls.length > 0 ? "" : "Nothing to answer."
  events.push(...chunks(reply).map((text) => ({ type: "text-delta" as const, text })))
  events.push(...calls)
  output += reply
  events.push({
    type: "finish",
    reason: calls.length > 0 ? "tool-calls" : "stop",
    usage: { input, output: tokens(output) },
  })
  return { events }
}

export const makeOffline = (): ProviderClient => ({
  id: OFFLINE_PROVIDER_ID,
  stream: (request) =>
    Stream.suspend(() => {
      const { events, error } = plan(request)
      const stream = Stream.fromIterable(events)
      return error === undefined
        ? stream
        : Stream.concat(stream, Stream.fail(new ProviderError({ providerID: OFFLINE_PROVIDER_ID, message: error })))
    }).pipe(Stream.tap(() => Effect.yieldNow)),
})
