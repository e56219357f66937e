import type { Message, PromisePlugin, PromisePluginContext, ToolItem } from "@opencode-ai/plugin"
import { Schema } from "effect"

/**
 * A pruning plugin in the style of dynamic context pruning: the model sees an id under every tool output and
 * may `discard` outputs it no longer needs; once a session's stored tool output passes `threshold`
 * characters, the oldest outputs are pruned before the next prompt. Both go through the host's mutation
 * contract (a pruned call keeps its name and status, loses input and output, and carries `time.pruned` and
 * `prunedBy: "plugin:prune-tools"`), so storage, replay, live clients and the next model request agree.
 */
export interface PruneToolsOptions {
  /** Characters of stored tool output a session may hold before automatic pruning. Default 50,000. */
  readonly threshold?: number
  /** How many of the newest tool outputs automatic pruning always keeps. Default 2. */
  readonly keep?: number
}

export const PLUGIN_ID = "prune-tools"

/** The line appended to every tool output so the model can name it; `idOf` reads it back. */
export const label = (itemID: string) => `[tool output id: ${itemID}]`
const LABEL = /\[tool output id: (prt_[A-Za-z0-9]+)\]/g

/** Every tool output id a text mentions (a request's tool results, say). */
export const idsIn = (text: string): Array<string> => [...text.matchAll(LABEL)].map((match) => match[1]!)

const DiscardArgs = Schema.Struct({
  ids: Schema.Array(Schema.String).annotate({
    description: "ids of tool outputs to discard, as shown under each output ([tool output id: prt_...])",
  }),
})

const outputSize = (item: ToolItem) =>
  item.state.status === "completed" && item.time.pruned === undefined
    ? item.state.content.reduce((sum, part) => sum + (part.type === "text" ? part.text.length : 0), 0)
    : 0

/** The session's tool items with the message holding each, oldest first. */
const toolItems = async (ctx: PromisePluginContext, sessionID: string) => {
  const found: Array<{ messageID: string; item: ToolItem }> = []
  let cursor: string | undefined
  do {
    const page = await ctx.session.messages({ sessionID, limit: 200, ...(cursor ? { cursor } : {}) })
    for (const message of page.data as ReadonlyArray<Message>) {
      if (message.type !== "assistant") continue
      for (const item of message.content) if (item.type === "tool") found.push({ messageID: message.id, item })
    }
    cursor = page.cursor.next
  } while (cursor)
  return found
}

export const pruneTools = (options: PruneToolsOptions = {}): PromisePlugin => ({
  id: PLUGIN_ID,
  setup(ctx) {
    const threshold = options.threshold ?? 50_000
    const keep = options.keep ?? 2
    // itemID -> the message holding it, learned as outputs are labelled (rebuilt from the transcript after a restart).
    const holders = new Map<string, string>()

    ctx.session.hook("tool.execute.after", (event) => {
      holders.set(event.itemID, event.messageID)
      event.output = `${event.output}\n${label(event.itemID)}`
    })

    ctx.tool.register({
      id: "discard",
      description:
        "Discard tool outputs you no longer need, to keep the conversation small. Pass the ids shown under " +
        "each output. Discarded outputs are gone for good: read again what you may need later.",
      parameters: DiscardArgs,
      async execute(args, tool) {
        const discarded: Array<string> = []
        const refused: Array<{ id: string; _tag: string; message: string }> = []
        for (const id of new Set(args.ids)) {
          let messageID = holders.get(id)
          if (messageID === undefined) {
            messageID = (await toolItems(ctx, tool.sessionID)).find((entry) => entry.item.id === id)?.messageID
          }
          if (messageID === undefined) {
            refused.push({ id, _tag: "UnknownId", message: `no tool output ${id} in this session` })
            continue
          }
          try {
            // Bound to this call's session by the host: another session's message is not found there.
            await tool.removeItem({ messageID, itemID: id })
            discarded.push(id)
          } catch (error) {
            const e = error as { _tag?: string; message?: string }
            refused.push({ id, _tag: String(e._tag), message: String(e.message) })
          }
        }
        if (discarded.length === 0 && refused.length > 0) {
          throw new Error(refused.map((r) => `${r.id}: ${r._tag}: ${r.message}`).join("; "))
        }
        const lines = [
          `discarded ${discarded.length} output(s)`,
          ...refused.map((r) => `not discarded ${r.id}: ${r._tag}: ${r.message}`),
        ]
        return { output: lines.join("\n"), title: `discard ${discarded.length}`, metadata: { discarded, refused } }
      },
    })

    // Automatic pruning between turns: before a prompt is admitted to an idle session, the oldest outputs
    // go until the session is under the threshold again. A session busy with a turn is left for next time.
    ctx.session.hook("prompt", async (event) => {
      const items = (await toolItems(ctx, event.sessionID)).filter((entry) => outputSize(entry.item) > 0)
      let total = items.reduce((sum, entry) => sum + outputSize(entry.item), 0)
      if (total <= threshold) return
      for (const entry of items.slice(0, Math.max(0, items.length - keep))) {
        if (total <= threshold) break
        try {
          await ctx.session.item.remove({
            sessionID: event.sessionID,
            messageID: entry.messageID,
            itemID: entry.item.id,
          })
        } catch (error) {
          if ((error as { _tag?: string })._tag === "Session.BusyError") return
          throw error
        }
        total -= outputSize(entry.item)
      }
      ctx.log("pruned old tool output", { sessionID: event.sessionID, remaining: total })
    })
  },
})

export default pruneTools()
