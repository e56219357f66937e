import { describe, expect, it } from "vitest"
import { compareGenerated } from "../script/check.ts"
import { basicAuthorization, createOpencodeClient, OpencodeClient } from "../src/index.ts"

describe("the generated client", () => {
  it("is up to date with openapi.json (src/gen regenerates identically)", () => {
    expect(compareGenerated()).toEqual([])
  })

  it("binds every operation group to one configured client", () => {
    const client = createOpencodeClient({ baseUrl: "http://127.0.0.1:4096/", password: "pw" })
    expect(client).toBeInstanceOf(OpencodeClient)
    for (const method of [
      "create",
      "list",
      "get",
      "update",
      "delete",
      "prompt",
      "synthetic",
      "interrupt",
      "wait",
      "resume",
      "log",
      "prune",
      "erase",
    ]) {
      expect(typeof (client.session as unknown as Record<string, unknown>)[method]).toBe("function")
    }
    for (const method of ["list", "get", "update", "remove"]) {
      expect(typeof (client.message as unknown as Record<string, unknown>)[method]).toBe("function")
    }
    expect(typeof client.part.remove).toBe("function")
    expect(typeof client.plugin.list).toBe("function")
    expect(typeof client.db.stats).toBe("function")
    expect(typeof client.event.subscribe).toBe("function")
    expect(typeof client.health).toBe("function")
    const config = client.http.getConfig()
    expect(config.baseUrl).toBe("http://127.0.0.1:4096")
    expect(config.throwOnError).toBe(false)
    expect(new Headers(config.headers as HeadersInit).get("authorization")).toBe(basicAuthorization("pw"))
  })

  it("encodes the password as UTF-8 Basic credentials for user opencode", () => {
    expect(basicAuthorization("s3cret")).toBe(`Basic ${Buffer.from("opencode:s3cret").toString("base64")}`)
    expect(basicAuthorization("pässwörd")).toBe(`Basic ${Buffer.from("opencode:pässwörd", "utf8").toString("base64")}`)
  })
})
