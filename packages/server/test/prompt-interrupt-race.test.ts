/**
 * Prompt and interrupt sent at the same moment over real HTTP to a real `opencode2 serve` child (offline
 * provider). Before the fix, about one round in five left the session `busy` for good: `wait` never
 * returned, every mutation was 409, and a restart resumed the turn the user had stopped.
 */
import { Database } from "bun:sqlite"
import { createOpencodeClient, type OpencodeClient } from "@opencode-ai/sdk"
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
  return { child, client: createOpencodeClient({ baseUrl: match[1]! }) }
}

/** `wait`, or "timeout" when it has not returned within `ms`. */
const waitWithin = (client: OpencodeClient, sessionID: string, ms: number) =>
  within(
    client.session.wait({ path: { sessionID } }).then((r) => r.response?.status),
    ms,
  )

describe("prompt and interrupt sent together", () => {
  it(`${ROUNDS} rounds each end idle with wait returning, and a restart resumes nothing`, async () => {
    const cwd = tempDir()
    const database = join(cwd, "race.db")
    const first = await serve(cwd, database)
    const client = first.client
    const sessionID = (await client.session.create({ body: {} })).data!.id
    const failures: Array<string> = []
    for (let round = 0; round < ROUNDS && failures.length === 0; round++) {
      const calls: Array<Promise<{ response?: Response }>> = [
        client.session.prompt({ path: { sessionID }, body: { text: `round ${round}` } }),
        client.session.interrupt({ path: { sessionID } }),
      ]
      if (round % 40 === 20) {
        // A mutation in between: admitted when nothing holds the session, else 409; never anything else.
        const prompt = (await client.message.list({ path: { sessionID }, query: { limit: 1 } })).data!.items[0]!
        calls.splice(
          1,
          0,
          client.message.update({
            path: { sessionID, messageID: prompt.id, partID: prompt.parts[0]!.id },
            body: { text: `edited ${round}` },
          }),
        )
      }
      const statuses = (await Promise.all(calls)).map((r) => r.response?.status)
      if (
        statuses[0] !== 200 ||
        statuses.at(-1) !== 204 ||
        (statuses.length === 3 && ![200, 409].includes(statuses[1]!))
      )
        failures.push(`round ${round}: statuses ${statuses.join(",")}`)
      const waited = await waitWithin(client, sessionID, 5000)
      if (waited !== 204 && waited !== 200) failures.push(`round ${round}: wait ${waited}`)
      const status = (await client.session.get({ path: { sessionID } })).data!.status
      if (status !== "idle") failures.push(`round ${round}: status ${status}`)
    }
    expect(failures).toEqual([])
    // Idle means mutations are admitted again.
    const last = (await client.message.list({ path: { sessionID }, query: { order: "asc", limit: 1 } })).data!.items[0]!
    const edited = await client.message.update({
      path: { sessionID, messageID: last.id, partID: last.parts[0]!.id },
      body: { text: "after the race" },
    })
    expect(edited.response?.status).toBe(200)
    const before = {
      info: (await client.session.get({ path: { sessionID } })).data!,
      newest: (await client.message.list({ path: { sessionID }, query: { order: "desc", limit: 1 } })).data!.items[0]!
        .id,
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
      const info = (await second.client.session.get({ path: { sessionID } })).data!
      expect(info.status).toBe("idle")
      expect(await waitWithin(second.client, sessionID, 5000)).not.toBe("timeout")
      // Nothing was resumed: no restart notice, no new turn, the session exactly as it was left.
      expect({
        info: (await second.client.session.get({ path: { sessionID } })).data!,
        newest: (await second.client.message.list({ path: { sessionID }, query: { order: "desc", limit: 1 } })).data!
          .items[0]!.id,
      }).toEqual(before)
    } finally {
      second.child.kill("SIGTERM")
      await second.child.exited
    }
  }, 120_000)
})
