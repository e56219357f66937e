import { Effect, Layer, Redacted } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import { UnauthorizedError } from "@opencode-ai/protocol"
import { Authorization } from "@opencode-ai/protocol"

/** The Basic-auth user name; the password is the server's (`OPENCODE_SERVER_PASSWORD` at the CLI). */
export const AUTH_USER = "opencode"

const digest = (text: string) => createHash("sha256").update(text).digest()

/** Compares in constant time (over digests, so lengths do not leak either). */
const same = (a: string, b: string) => timingSafeEqual(digest(a), digest(b))

export const checkCredentials = (password: string, username: string, given: string) =>
  same(username, AUTH_USER) && same(given, password)

/** Parses `Authorization: Basic ...`; undefined when absent or malformed. */
export const parseBasic = (header: string | null | undefined): { username: string; password: string } | undefined => {
  const match = header ? /^basic +(\S+)\s*$/i.exec(header) : null
  if (!match) return undefined
  let decoded: string
  try {
    decoded = Buffer.from(match[1]!, "base64").toString("utf8")
  } catch {
    return undefined
  }
  const colon = decoded.indexOf(":")
  return colon === -1 ? undefined : { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

/** Whether a request may proceed: always without a password, else only with the right credentials. */
export const authorized = (password: string | undefined, header: string | null | undefined) => {
  if (password === undefined) return true
  const credentials = parseBasic(header)
  return credentials !== undefined && checkCredentials(password, credentials.username, credentials.password)
}

export const unauthorized = () =>
  new UnauthorizedError({
    message: `Authentication required: use HTTP Basic auth with user "${AUTH_USER}" and the server password`,
  })

/** The `Authorization` HttpApi middleware, checking the same credentials as the front door. */
export const AuthorizationLive = (password: string | undefined) =>
  Layer.succeed(Authorization, {
    basic: (httpEffect, { credential }) =>
      password === undefined || checkCredentials(password, credential.username, Redacted.value(credential.password))
        ? httpEffect
        : Effect.fail(unauthorized()),
  })
