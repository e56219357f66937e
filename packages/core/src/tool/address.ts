import { isIPv4, isIPv6 } from "node:net"

/**
 * Which IP addresses `webfetch` refuses by default: everything that is not a public unicast address.
 * IPv6 is checked against IANA's special-purpose address registry: every block that is not globally
 * reachable is refused, and so are the whole IPv4-mapped block (`::ffff:0:0/96`, no public IPv6 host
 * lives there) and IETF protocol assignments (`2001::/23`, Teredo and ORCHIDv2 included). The IPv4
 * forms whose reachability is that of the IPv4 address they carry (IPv4-compatible `::a.b.c.d`, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16`) are judged by it.
 */

const v4Ranges: ReadonlyArray<readonly [string, number, string]> = [
  ["0.0.0.0", 8, "this network"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared (carrier-grade NAT)"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol assignments"],
  ["192.0.2.0", 24, "documentation"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
]

const v4Number = (address: string): number => address.split(".").reduce((value, part) => value * 256 + Number(part), 0)

const v4Reason = (address: string): string | undefined => {
  const value = v4Number(address)
  for (const [base, bits, reason] of v4Ranges) {
    const size = 2 ** (32 - bits)
    const start = v4Number(base)
    if (value >= start && value < start + size) return reason
  }
  return undefined
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part expanded, zone id dropped). */
const v6Groups = (address: string): Array<number> => {
  let text = address.split("%")[0]!.toLowerCase()
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted) {
    const value = v4Number(dotted[1]!)
    text = `${text.slice(0, -dotted[1]!.length)}${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`
  }
  const [head, tail] = text.split("::") as [string, string | undefined]
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)))
  const left = parse(head)
  if (tail === undefined) return left
  const right = parse(tail)
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right]
}

const embeddedV4 = (high: number, low: number) => `${high >>> 8}.${high & 0xff}.${low >>> 8}.${low & 0xff}`

const v6Reason = (address: string): string | undefined => {
  const g = v6Groups(address)
  const zeroUpTo = (n: number) => g.slice(0, n).every((group) => group === 0)
  if (zeroUpTo(8)) return "unspecified"
  if (zeroUpTo(7) && g[7] === 1) return "loopback"
  if (zeroUpTo(5) && g[5] === 0xffff) {
    const inner = embeddedV4(g[6]!, g[7]!)
    return `${v4Reason(inner) ?? "IPv4-mapped"} (IPv4 ${inner})`
  }
  // IPv4-compatible (::/96, deprecated): the IPv4 address decides.
  if (zeroUpTo(6)) {
    const inner = embeddedV4(g[6]!, g[7]!)
    const reason = v4Reason(inner)
    return reason === undefined ? undefined : `${reason} (IPv4 ${inner})`
  }
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((group) => group === 0)) {
    const inner = embeddedV4(g[6]!, g[7]!)
    const reason = v4Reason(inner)
    return reason === undefined ? undefined : `${reason} (NAT64 of ${inner})`
  }
  if (g[0] === 0x2002) {
    const inner = embeddedV4(g[1]!, g[2]!)
    const reason = v4Reason(inner)
    return reason === undefined ? undefined : `${reason} (6to4 of ${inner})`
  }
  const first = g[0]!
  if (first === 0x64 && g[1] === 0xff9b && g[2] === 1) return "local-use IPv4/IPv6 translation"
  if (first === 0x2001 && g[1]! < 0x0200) return "IETF protocol assignments"
  if (first === 0x3fff && g[1]! < 0x1000) return "documentation"
  if (first === 0x5f00) return "segment routing (SRv6) SIDs"
  if ((first & 0xffc0) === 0xfe80) return "link-local"
  if ((first & 0xffc0) === 0xfec0) return "site-local"
  if ((first & 0xfe00) === 0xfc00) return "unique-local"
  if ((first & 0xff00) === 0xff00) return "multicast"
  if (first === 0x2001 && g[1] === 0x0db8) return "documentation"
  // 100::/64 discard-only and, next to it, 100:0:0:1::/64 dummy prefix.
  if (first === 0x0100 && g[1] === 0 && g[2] === 0 && (g[3] === 0 || g[3] === 1)) return "discard-only"
  return undefined
}

/**
 * Why an address is not public (`"loopback"`, `"private"`, ...), or `undefined` for a public one. An
 * input that is not an IP address is refused too (`"not an IP address"`): callers pass resolved addresses.
 */
export const nonPublicReason = (address: string): string | undefined => {
  if (isIPv4(address)) return v4Reason(address)
  if (isIPv6(address)) return v6Reason(address)
  return "not an IP address"
}
