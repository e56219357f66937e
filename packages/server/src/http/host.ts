import { ForbiddenError } from "@opencode-ai/protocol"

/**
 * The DNS-rebinding defence. A web page on an attacker's domain can point
 * that domain at 127.0.0.1 and then talk to the local server as a same-origin page; the only trace is the
 * `Host` header, which still names the attacker's domain. Without a password, the server answers only
 * requests whose `Host` is a loopback name or address, or a name the user listed in `server.allowedHosts`.
 */

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/

/** `127.0.0.0/8` written as a dotted quad (each part 0-255, no leading zeros beyond a single 0). */
const isLoopbackV4 = (host: string) => {
  const parts = IPV4.exec(host)
  if (!parts) return false
  const octets = parts.slice(1).map((part) => (part.length > 1 && part.startsWith("0") ? Number.NaN : Number(part)))
  return octets[0] === 127 && octets.every((octet) => Number.isInteger(octet) && octet >= 0 && octet <= 255)
}

/**
 * The host name of a `Host` header value, lowercased and without the port: `[::1]:4096` is `[::1]`,
 * `LocalHost:80` is `localhost`. Undefined for a value that is not a host (empty, stray characters).
 */
export const hostName = (header: string): string | undefined => {
  const value = header.trim().toLowerCase()
  if (value.startsWith("[")) {
    const end = value.indexOf("]")
    if (end === -1) return undefined
    const rest = value.slice(end + 1)
    return rest === "" || /^:\d{1,5}$/.test(rest) ? value.slice(0, end + 1) : undefined
  }
  const colon = value.lastIndexOf(":")
  const name = colon === -1 ? value : value.slice(0, colon)
  if (colon !== -1 && !/^\d{1,5}$/.test(value.slice(colon + 1))) return undefined
  return /^[a-z0-9.-]+$/.test(name) ? name : undefined
}

/** Whether a host name (as returned by `hostName`) is loopback: `localhost`, `127.0.0.0/8` or `[::1]`. */
export const isLoopbackHost = (name: string) => name === "localhost" || name === "[::1]" || isLoopbackV4(name)

export interface HostRule {
  /** Whether the request's `Host` may be served; always true when the server has a password. */
  allows(header: string | null): boolean
  /** The 403 answer for a refused `Host`. */
  refusal(header: string | null): ForbiddenError
}

/**
 * The host rule for a server: with a password every Host is served (after auth); without one, loopback
 * names and addresses (any port) and the names in `allowedHosts` (case-insensitive, port ignored).
 */
export const makeHostRule = (options: {
  password: string | undefined
  allowedHosts?: ReadonlyArray<string>
}): HostRule => {
  const allowed = new Set((options.allowedHosts ?? []).map((entry) => hostName(entry) ?? entry.trim().toLowerCase()))
  return {
    allows(header) {
      if (options.password !== undefined) return true
      if (header === null) return false
      const name = hostName(header)
      return name !== undefined && (isLoopbackHost(name) || allowed.has(name))
    },
    refusal(header) {
      const shown = header === null ? "no Host header" : `Host "${header.slice(0, 200)}"`
      return new ForbiddenError({
        message:
          `Refused ${shown}: without a password this server only answers requests addressed to localhost, ` +
          "127.0.0.0/8 or [::1]; list other names in the config's server.allowedHosts, or set OPENCODE_SERVER_PASSWORD",
      })
    },
  }
}
