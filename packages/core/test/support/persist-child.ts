// Child process for the cross-process persistence test: `write PATH` creates a session with messages,
// `read PATH` prints what another process sees in the same file.
import { Effect } from "effect"
import { Session } from "../../src/session/session.ts"
import { StoreLayer } from "../../src/host.ts"
import { admit, textOf } from "./seed.ts"

const [mode, path] = process.argv.slice(2) as ["write" | "read", string]

const program = Effect.gen(function* () {
  const session = yield* Session
  if (mode === "write") {
    const info = yield* session.create({ title: "written by child", directory: "/work" })
    yield* admit(info.id, "first", "second", "third")
    return { sessionID: info.id }
  }
  const page = yield* session.list()
  const info = page.data[0]!
  const messages = yield* session.messages(info.id)
  return {
    sessionID: info.id,
    title: info.title,
    seq: info.seq,
    texts: messages.data.map(textOf),
  }
})

const result = await Effect.runPromise(program.pipe(Effect.provide(StoreLayer({ path, persist: true }))))
process.stdout.write(JSON.stringify(result))
