import { readFileSync, writeFileSync } from "node:fs"
import { resolve } from "node:path"
import { withBackend } from "./backend.ts"
import { CommandError, defineCommand, EXIT_OK, UsageError } from "./command.ts"
import { target, targetFlags } from "./session.ts"

const id = { name: "ID", description: "The session id (ses_...)", required: true } as const

/** `opencode2 session rename ID TITLE...`: a new title; prints the session id and title. */
export const sessionRename = defineCommand({
  name: "session rename",
  summary: "Give a session a new title.",
  synopsis: "ID TITLE... [--attach URL | --db PATH]",
  flags: { ...targetFlags },
  positionals: [
    id,
    { name: "TITLE", description: "The new title (words are joined with spaces)", required: true, variadic: true },
  ],
  async run({ flags, args }, io): Promise<number> {
    const [sessionID, ...words] = args
    const title = words.join(" ").trim()
    if (!title) throw new UsageError("TITLE is empty", sessionRename)
    const info = await withBackend(target(sessionRename, flags), io, (backend) => backend.rename(sessionID!, title))
    io.out(`${info.id}  ${info.title}`)
    return EXIT_OK
  },
})

/** `opencode2 session delete ID`: deletes the session and its transcript. */
export const sessionDelete = defineCommand({
  name: "session delete",
  summary: "Delete a session and its transcript.",
  synopsis: "ID [--attach URL | --db PATH]",
  details: ["With the event journal on, its journaled events stay until `opencode2 db erase --session ID`."],
  flags: { ...targetFlags },
  positionals: [id],
  async run({ flags, args }, io): Promise<number> {
    await withBackend(target(sessionDelete, flags), io, (backend) => backend.delete(args[0]!))
    io.err(`deleted ${args[0]}`)
    return EXIT_OK
  },
})

/** `opencode2 session export ID [--output FILE]`: the session and its messages as one JSON document. */
export const sessionExport = defineCommand({
  name: "session export",
  summary: "Write a session and its messages as one JSON document (stdout, or --output FILE).",
  synopsis: "ID [--output FILE] [--attach URL | --db PATH]",
  details: ['The document is `{ format: "opencode2.session", version: 2, session, messages }`; see `session import`.'],
  flags: {
    output: { type: "string", short: "o", value: "FILE", description: "Write to FILE instead of stdout" },
    ...targetFlags,
  },
  positionals: [id],
  async run({ flags, args }, io): Promise<number> {
    const document = await withBackend(target(sessionExport, flags), io, (backend) => backend.export(args[0]!))
    const text = `${JSON.stringify(document, null, 2)}\n`
    if (flags.output !== undefined) writeFileSync(resolve(io.cwd, flags.output), text)
    else io.write(text)
    return EXIT_OK
  },
})

/** `opencode2 session import FILE`: restores an export as a new session; prints its id. */
export const sessionImport = defineCommand({
  name: "session import",
  summary: "Restore a session from `session export` output as a new session (FILE, or - for stdin).",
  synopsis: "FILE [--db PATH]",
  details: [
    "The restored session gets new session and message ids (the original may still exist); titles, the",
    "directory, messages, their content, retractions and completions are kept. A document that does not decode is",
    "refused and nothing is written. Prints the new session id.",
  ],
  flags: { db: targetFlags.db },
  positionals: [{ name: "FILE", description: "The exported JSON document (- reads stdin)", required: true }],
  async run({ flags, args }, io): Promise<number> {
    const file = args[0]!
    let document: unknown
    try {
      document = JSON.parse(file === "-" ? readFileSync(0, "utf8") : readFileSync(resolve(io.cwd, file), "utf8"))
    } catch (cause) {
      throw new CommandError(`cannot read ${file}: ${cause instanceof Error ? cause.message : String(cause)}`)
    }
    const info = await withBackend(target(sessionImport, flags), io, (backend) => backend.import(document))
    io.out(info.id)
    return EXIT_OK
  },
})

/** `opencode2 session fork ID [--message MSG]`: a new session from the transcript up to a message; prints its id. */
export const sessionFork = defineCommand({
  name: "session fork",
  summary: "Copy a session's transcript, up to and including a message, into a new session.",
  synopsis: "ID [--message MSG] [--attach URL | --db PATH]",
  details: [
    "The new session works in the same directory, has new message ids and `parentID` set to ID; without",
    "--message the whole transcript is copied. Prints the new session id.",
  ],
  flags: {
    message: { type: "string", short: "m", value: "MSG", description: "The last message copied (msg_...)" },
    ...targetFlags,
  },
  positionals: [id],
  async run({ flags, args }, io): Promise<number> {
    const info = await withBackend(target(sessionFork, flags), io, (backend) => backend.fork(args[0]!, flags.message))
    io.out(info.id)
    return EXIT_OK
  },
})
