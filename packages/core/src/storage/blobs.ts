import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import * as fs from "node:fs/promises"
import { tmpdir } from "node:os"
import * as nodePath from "node:path"
import { Context, Effect, Layer } from "effect"
import { BLOB_REF, blobRef } from "./blob-ref.ts"
import { Database, type DatabaseShape } from "./database.ts"
import { type HashAhead, makeHashAhead } from "./hash-ahead.ts"

export { BLOB_REF, blobRef } from "./blob-ref.ts"

/** What the blob store holds: how many contents, their bytes. */
export interface BlobCount {
  readonly count: number
  readonly bytes: number
}

/**
 * The content-addressed store of before-images, beside the database: `<db file>-blobs/sha256/<2 hex>/<62 hex>`
 * (a temporary directory, removed on close, for `:memory:`). Contents are immutable once written (each is
 * written to a temporary sibling and renamed into place), so the same content is stored once however many
 * tool calls reference it. A content stays while any projected row or journaled event mentions its
 * reference; `collect` removes the rest (erase runs it).
 */
export interface BlobsShape {
  readonly directory: string
  /**
   * Stores a text (`known`: its reference, when the caller knows it); returns its reference. Pinned until
   * `release`, so a collection never takes it first.
   */
  put(content: string, known?: string): Promise<string>
  /** The reference of what was last written to `path`, while the file keeps the fingerprint it had then. */
  recall(path: string, print: string): string | undefined
  /** Notes what was just written to `path` (see `recall`); `null` forgets it. */
  remember(path: string, print: string, ref: string | null): void
  /** Lets a collection take these again (once the event that references them is committed). */
  release(refs: ReadonlyArray<string>): void
  /** The stored text, or `undefined` when it is not (or no longer) stored. */
  get(ref: string): Promise<string | undefined>
  /** Removes every stored content no row or event references (pinned ones excepted). */
  collect(): Promise<BlobCount>
  /** How many contents are stored, and their bytes. */
  count(): Promise<BlobCount>
  /**
   * `blobRef(content)`, computed off the JavaScript thread for a large content: a tool starts it when it
   * plans a change and awaits it when it records the change (`hash-ahead.ts`).
   */
  refAhead(content: string): Promise<string>
}

/** How many recently written files `recall` knows. */
const WRITTEN_PATHS = 256

const errnoCode = (error: unknown) => (error as { code?: string } | undefined)?.code

/** Every blob reference the database mentions: messages (tool items), staged reverts and the journal. */
const referenced = (database: DatabaseShape): Set<string> => {
  const refs = new Set<string>()
  const scan = (text: string | null) => {
    if (text) for (const match of text.matchAll(BLOB_REF)) refs.add(match[0])
  }
  const { client } = database
  for (const row of client
    .query<{ data: string }, []>("SELECT data FROM session_message WHERE data LIKE '%sha256:%'")
    .all())
    scan(row.data)
  for (const row of client.query<{ revert: string }, []>("SELECT revert FROM session WHERE revert IS NOT NULL").all())
    scan(row.revert)
  for (const row of client.query<{ data: string }, []>("SELECT data FROM event WHERE data LIKE '%sha256:%'").all())
    scan(row.data)
  return refs
}

export const makeBlobs = (
  database: DatabaseShape,
  directory: string,
  hashing: HashAhead = makeHashAhead(),
): BlobsShape => {
  const root = nodePath.join(directory, "sha256")
  const pinned = new Map<string, number>()
  // What tools wrote last, by path: the next call on an untouched file needs no hashing of its content.
  const written = new Map<string, { readonly print: string; readonly ref: string }>()
  const pathOf = (ref: string) => {
    const hex = ref.slice("sha256:".length)
    return nodePath.join(root, hex.slice(0, 2), hex.slice(2))
  }
  const entries = async () => {
    const out: Array<{ ref: string; path: string }> = []
    const shards = await fs.readdir(root).catch((error) => (errnoCode(error) === "ENOENT" ? [] : Promise.reject(error)))
    for (const shard of shards) {
      if (!/^[0-9a-f]{2}$/.test(shard)) continue
      for (const name of await fs.readdir(nodePath.join(root, shard))) {
        if (/^[0-9a-f]{62}$/.test(name))
          out.push({ ref: `sha256:${shard}${name}`, path: nodePath.join(root, shard, name) })
      }
    }
    return out
  }
  return {
    directory,
    refAhead: hashing.ref,
    put: async (content, known) => {
      const ref = known ?? blobRef(content)
      pinned.set(ref, (pinned.get(ref) ?? 0) + 1)
      const target = pathOf(ref)
      const exists = await fs.lstat(target).then(
        () => true,
        (error) => (errnoCode(error) === "ENOENT" ? false : Promise.reject(error)),
      )
      if (exists) return ref
      await fs.mkdir(nodePath.dirname(target), { recursive: true, mode: 0o700 })
      const temp = `${target}.${randomBytes(6).toString("hex")}.tmp`
      try {
        await fs.writeFile(temp, content, { mode: 0o600, flag: "wx" })
        await fs.rename(temp, target)
      } catch (error) {
        await fs.unlink(temp).catch(() => undefined)
        throw error
      }
      return ref
    },
    recall: (path, print) => {
      const entry = written.get(path)
      return entry !== undefined && entry.print === print ? entry.ref : undefined
    },
    remember: (path, print, ref) => {
      written.delete(path)
      if (ref === null || print === "missing") return
      written.set(path, { print, ref })
      if (written.size > WRITTEN_PATHS) written.delete(written.keys().next().value!)
    },
    release: (refs) => {
      for (const ref of refs) {
        const n = (pinned.get(ref) ?? 0) - 1
        if (n > 0) pinned.set(ref, n)
        else pinned.delete(ref)
      }
    },
    get: async (ref) => {
      if (!/^sha256:[0-9a-f]{64}$/.test(ref)) return undefined
      return fs
        .readFile(pathOf(ref), "utf8")
        .catch((error) => (errnoCode(error) === "ENOENT" ? undefined : Promise.reject(error)))
    },
    collect: async () => {
      const keep = referenced(database)
      let count = 0
      let bytes = 0
      for (const entry of await entries()) {
        if (keep.has(entry.ref) || pinned.has(entry.ref)) continue
        const size = await fs.lstat(entry.path).then(
          (stat) => stat.size,
          () => 0,
        )
        await fs.unlink(entry.path).catch(() => undefined)
        count++
        bytes += size
      }
      return { count, bytes }
    },
    count: async () => {
      let count = 0
      let bytes = 0
      for (const entry of await entries()) {
        count++
        bytes += await fs.lstat(entry.path).then(
          (stat) => stat.size,
          () => 0,
        )
      }
      return { count, bytes }
    },
  }
}

/**
 * The directory of a database's blob store, `<db file>-blobs` beside it (like its `-wal`), so that two
 * databases in one directory never share (and collect) each other's contents; `undefined` for `:memory:`.
 */
export const blobDirectory = (databasePath: string) =>
  databasePath === ":memory:" ? undefined : `${databasePath}-blobs`

export class Blobs extends Context.Service<Blobs, BlobsShape>()("@opencode-ai/core/storage/Blobs") {
  static readonly layer = Layer.effect(
    Blobs,
    Effect.gen(function* () {
      const database = yield* Database
      let directory = blobDirectory(database.path)
      if (directory === undefined) {
        // An in-memory database keeps its before-images only as long as it lives.
        const temporary = mkdtempSync(nodePath.join(tmpdir(), "opencode2-blobs-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(temporary, { recursive: true, force: true })))
        directory = temporary
      }
      const hashing = yield* Effect.acquireRelease(Effect.sync(makeHashAhead), (made) => Effect.sync(made.close))
      return Blobs.of(makeBlobs(database, directory, hashing))
    }),
  )
}
