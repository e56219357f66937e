/**
 * Prompt and interrupt sent at the same moment over real HTTP to a real `opencode2 serve` child (offline
 * provider). Before the fix, about one round in five left the session `busy` for good: `wait` never
 * returned, every mutation was 409, and a restart resumed the turn the user had stopped.
 */
import { Database } from "bun:sqlite"
import { createOpencodeClient } from "@opencode-ai/sdk/v2"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { LISTENING, readRest, readUntil, spawnCli } from "./support/cli.ts"
import { tempDir } from "./support/tmp.ts"
import { within } from "./support/deadline.ts"

const ROUNDS = 200

const serve = async (cwd: string, database: string) => {
  const child = spawnCli(["serve", "--port", "0", "--db", database], { cwd })
  const { text, reader } = await readUntil(child.stdout, (out) => LISTENING.test(out))
  const match = LISTENING.exec(text)
  if (!match) throw new Error(`serve exited (${await child.exited}): ${await new Response(child.stderr).text()}`)
  void readRest(reader)
  return { child, client: createOpencodeClient({ baseUrl: match[1]! }).v2 }
}

type Client = ReturnType<typeof createOpencodeClient>["v2"]

/** `wait`, or "timeout" when it has not returned within `ms`. */
const waitWithin = (client: Client, sessionID: string, ms: number) =>
  within(
    client.session.wait({ sessionID }).then((r) => r.response?.status),
    ms,
  )

/** The newest (`desc`) or oldest (`asc`) message of the session. */
const edge = async (client: Client, sessionID: string, order: "asc" | "desc") =>
  (await client.session.messages({ sessionID, order, limit: 1 })).data!.data[0]!

describe("prompt and interrupt sent together", () => {
  it(`${ROUNDS} rounds each end idle with wait returning, and a restart resumes nothing`, async () => {
    const cwd = tempDir()
    const database = join(cwd, "race.db")
    const first = await serve(cwd, database)
    const client = first.client
    const sessionID = (await client.session.create()).data!.data.id
    const failures: Array<string> = []
    for (let round = 0; round < ROUNDS && failures.length === 0; round++) {
      const calls: Array<Promise<{ response?: Response }>> = [
        client.session.prompt({ sessionID, prompt: { text: `round ${round}` } }),
        client.session.interrupt({ sessionID }),
      ]
      if (round % 40 === 20) {
        // A mutation in between: admitted when nothing holds the session, else 409; never anything else.
        const prompt = await edge(client, sessionID, "asc")
        calls.splice(1, 0, client.session.correct({ sessionID, messageID: prompt.id, text: `edited ${round}` }))
      }
      const statuses = (await Promise.all(calls)).map((r) => r.response?.status)
      if (
        statuses[0] !== 200 ||
        statuses.at(-1) !== 204 ||
        (statuses.length === 3 && ![200, 409].includes(statuses[1]!))
      )
        failures.push(`round ${round}: statuses ${statuses.join(",")}`)
      const waited = await waitWithin(client, sessionID, 5000)
      if (waited !== 204) failures.push(`round ${round}: wait ${waited}`)
      const status = (await client.session.get({ sessionID })).data!.data.status
      if (status !== "idle") failures.push(`round ${round}: status ${status}`)
    }
    expect(failures).toEqual([])
    // Idle means mutations are admitted again.
    const oldest = await edge(client, sessionID, "asc")
    const edited = await client.session.correct({ sessionID, messageID: oldest.id, text: "after the race" })
    expect(edited.response?.status).toBe(200)
    const before = {
      info: (await client.session.get({ sessionID })).data!.data,
      newest: (await edge(client, sessionID, "desc")).id,
    }
    first.child.kill("SIGTERM")
    expect(await first.child.exited).toBe(0)

    // No claim was left behind for a restart to find.
    const db = new Database(database, { readonly: true })
    const claims = db.query("SELECT count(*) AS n FROM session_execution").get() as { n: number }
    db.close()
    expect(claims.n).toBe(0)

    const second = await serve(cwd, database)
    try {
      const info = (await second.client.session.get({ sessionID })).data!.data
      expect(info.status).toBe("idle")
      expect(await waitWithin(second.client, sessionID, 5000)).not.toBe("timeout")
      // Nothing was resumed: no restart notice, no new turn, the session exactly as it was left.
      expect({
        info: (await second.client.session.get({ sessionID })).data!.data,
        newest: (await edge(second.client, sessionID, "desc")).id,
      }).toEqual(before)
    } finally {
      second.child.kill("SIGTERM")
      await second.child.exited
    }
  }, 120_000)
})
