/**
 * Seeding sessions and reading their transcripts over the SDK, shared by the route and end-to-end tests so
 * each seeds a turn the same way.
 */
import type { OpencodeClient, SessionMessage, SessionMessageAssistantTool } from "@opencode-ai/sdk/v2"

type Api = OpencodeClient["v2"]

/** Every tool item of a transcript's assistant messages, in order. */
export const toolItems = (messages: ReadonlyArray<SessionMessage>) =>
  messages.flatMap((m) =>
    m.type === "assistant" ? m.content.filter((i): i is SessionMessageAssistantTool => i.type === "tool") : [],
  )

/** A session's transcript, oldest first (the server's default page unless `limit` says otherwise). */
export const messagesOf = async (api: Api, sessionID: string, limit?: number) =>
  (await api.session.messages({ sessionID, ...(limit === undefined ? {} : { limit }) })).data!.data

/**
 * A new session that has had one finished turn for `text` (with the offline provider, `/think` and `/tool`
 * lines script reasoning and tool calls): its id and the id of the prompt's message.
 */
export const finishedTurn = async (
  api: Api,
  text = "hello",
  session: NonNullable<Parameters<Api["session"]["create"]>[0]> = {},
) => {
  const sessionID = (await api.session.create(session)).data!.data.id
  const promptID = (await api.session.prompt({ sessionID, prompt: { text } })).data!.data.id
  await api.session.wait({ sessionID })
  return { sessionID, promptID }
}
