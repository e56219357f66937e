import type { QuestionRequest } from "@opencode-ai/schema"
import type { PermissionRequest } from "../permission/ask.ts"
import type { AssistantMessage } from "../domain/message.ts"
import { runningTask } from "./subagent.ts"

type ToolItem = Extract<AssistantMessage["content"][number], { type: "tool" }>

/** The asks and questions of one message, answered or not (`Permissions.sync.ofMessage`, `Questions.sync.ofMessage`). */
export interface AskReads {
  permissions(sessionID: string, messageID: string): ReadonlyArray<PermissionRequest>
  questions(sessionID: string, messageID: string): ReadonlyArray<QuestionRequest>
}

/** The calls of a message that have not settled. */
export const openCalls = (message: Pick<AssistantMessage, "content">): ReadonlyArray<ToolItem> =>
  message.content.filter(
    (item): item is ToolItem =>
      item.type === "tool" && (item.state.status === "pending" || item.state.status === "running"),
  )

/**
 * The permission ask an open call waits on, pending or already answered: the latest one of its tool item.
 * Whether it was answered before or after a restart makes no difference to what must happen: the stored
 * call runs once, with that answer. Only a call that has not started has one: once `tool.called` is
 * committed (the item is `running`) the answer was used, and running the call again would apply it twice.
 */
export const askOfCall = (asks: ReadonlyArray<PermissionRequest>, call: ToolItem): PermissionRequest | undefined =>
  call.state.status === "pending" ? asks.findLast((ask) => ask.itemID === call.id) : undefined

/**
 * Whether a message cut off by a stop or a crash must be finished by the resumed turn rather than closed
 * as cut off: one of its open calls asked for permission or put a question (answered yet or not), or is a
 * `task` call whose child resumes. Reading only pending asks here would drop a call whose ask was answered
 * between the restart and the moment the resumed turn reads it, leaving the call open forever.
 */
export const awaitsAnswer = (sessionID: string, message: AssistantMessage, reads: AskReads): boolean => {
  if (runningTask(message)) return true
  const open = openCalls(message)
  if (open.length === 0) return false
  const asks = reads.permissions(sessionID, message.id)
  if (open.some((call) => askOfCall(asks, call))) return true
  const questions = reads.questions(sessionID, message.id)
  return open.some((call) => questions.some((q) => q.tool?.callID === call.callID))
}
