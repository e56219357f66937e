import type { RevertConflict } from "@opencode-ai/sdk/v2"
import { withBackend } from "./backend.ts"
import { CommandError, defineCommand, EXIT_OK, UsageError } from "./command.ts"
import { target, targetFlags } from "./session.ts"

const conflictLines = (conflicts: ReadonlyArray<RevertConflict> | undefined) =>
  (conflicts ?? []).map((conflict) => `left alone ${conflict.path}: ${conflict.reason}`)

/**
 * The failure as the user reads it: the message, and the error's tag (the same one an HTTP client sees),
 * so a script can tell a wrong id (`MessageNotFoundError`, `SessionNotFoundError`) from a busy session.
 */
const tagged = (cause: unknown): never => {
  if (cause instanceof CommandError && cause.tag && !cause.message.includes(cause.tag))
    throw new CommandError(`${cause.message} (${cause.tag})`, cause.tag)
  throw cause
}

/**
 * `opencode2 session revert ID MSG` stages a revert to just after a message; `--clear` undoes the staged
 * revert, `--commit` makes it final. The same operations as `POST /api/session/:id/revert/{stage,clear,commit}`.
 */
export const sessionRevert = defineCommand({
  name: "session revert",
  summary: "Undo a session's work back to a message (stage), then undo that (--clear) or make it final (--commit).",
  synopsis: "ID (MSG [--keep-files] | --clear | --commit) [--json] [--attach URL | --db PATH]",
  details: [
    "With MSG: the messages after MSG are hidden from the view and from the model, and the files the",
    "session's tools changed after it are restored; a file changed outside the session since is left alone",
    "and reported. Staging again moves the revert. --keep-files hides the messages only.",
    "--clear puts the files and the messages back; --commit removes the hidden messages for good.",
    "A turn running in the session refuses all three (SessionBusyError); a message of another session or a",
    "missing one is MessageNotFoundError; nothing is changed then.",
  ],
  flags: {
    clear: { type: "boolean", description: "Undo the staged revert" },
    commit: { type: "boolean", description: "Make the staged revert final (the hidden messages are removed)" },
    "keep-files": { type: "boolean", description: "With MSG: hide the later messages, restore no file" },
    json: { type: "boolean", description: "Print the staged revert (RevertState) as JSON" },
    ...targetFlags,
  },
  positionals: [
    { name: "ID", description: "The session id (ses_...)", required: true },
    { name: "MSG", description: "The message to revert to: later messages are hidden (msg_...)" },
  ],
  async run({ flags, args }, io): Promise<number> {
    const [sessionID, messageID] = args as [string, string | undefined]
    const actions = [messageID !== undefined, flags.clear === true, flags.commit === true].filter(Boolean).length
    if (actions !== 1) throw new UsageError("give exactly one of MSG, --clear or --commit", sessionRevert)
    if (flags["keep-files"] && messageID === undefined)
      throw new UsageError("--keep-files goes with MSG", sessionRevert)
    await withBackend(target(sessionRevert, flags), io, async (backend) => {
      if (messageID !== undefined) {
        const state = await backend.revertStage(sessionID, messageID, flags["keep-files"] !== true).catch(tagged)
        if (flags.json) return io.out(JSON.stringify(state, null, 2))
        const restored = state.restored ?? []
        io.out(`staged revert of ${sessionID} to ${state.messageID}: the later messages are hidden`)
        for (const file of restored) io.out(`restored ${file.path}`)
        for (const line of conflictLines(state.conflicts)) io.out(line)
        io.err("undo it with --clear, make it final with --commit")
      } else if (flags.clear) {
        const conflicts = await backend.revertClear(sessionID).catch(tagged)
        io.out(`cleared the revert of ${sessionID}: its messages and files are back`)
        for (const line of conflictLines(conflicts)) io.out(line)
      } else {
        await backend.revertCommit(sessionID).catch(tagged)
        io.out(`committed the revert of ${sessionID}: the hidden messages are removed`)
      }
    })
    return EXIT_OK
  },
})
