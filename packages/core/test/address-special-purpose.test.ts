import { describe, expect, it } from "vitest"
import { nonPublicReason } from "../src/tool/address.ts"

// IANA's IPv6 special-purpose address registry, one row per block: an address inside it, and whether
// webfetch refuses it. Blocks the registry marks not globally reachable are refused; so are the whole
// IPv4-mapped block and the IETF protocol assignments (2001::/23, a decision in address.ts). A public
// address just outside a block checks the block's edge.
const registry: ReadonlyArray<readonly [block: string, inside: string, refused: boolean, outside?: string]> = [
  ["::1/128 loopback", "::1", true],
  ["::/128 unspecified", "::", true],
  ["::ffff:0:0/96 IPv4-mapped", "::ffff:8.8.8.8", true, "::fffe:808:808"],
  ["64:ff9b::/96 IPv4/IPv6 translation (public IPv4 inside)", "64:ff9b::808:808", false],
  ["64:ff9b::/96 IPv4/IPv6 translation (loopback inside)", "64:ff9b::7f00:1", true],
  ["64:ff9b:1::/48 local-use translation", "64:ff9b:1::808:808", true, "64:ff9b:2::1"],
  ["100::/64 discard-only", "100::1", true, "100:0:0:2::1"],
  ["100::/64 discard-only (last address)", "100::ffff:ffff:ffff:ffff", true],
  ["100:0:0:1::/64 dummy prefix", "100:0:0:1::1", true],
  ["2001::/23 IETF protocol assignments", "2001:100::1", true, "2001:200::1"],
  ["2001::/32 Teredo", "2001:0:4136:e378:8000:63bf:3fff:fdd2", true],
  ["2001:1::1/128 port control protocol anycast", "2001:1::1", true],
  ["2001:2::/48 benchmarking", "2001:2::1", true],
  ["2001:3::/32 AMT", "2001:3::1", true],
  ["2001:4:112::/48 AS112-v6", "2001:4:112::1", true],
  ["2001:10::/28 deprecated ORCHID", "2001:10::1", true],
  ["2001:20::/28 ORCHIDv2", "2001:20::1", true],
  ["2001:30::/28 drone remote ID", "2001:30::1", true],
  ["2001:db8::/32 documentation", "2001:db8::1", true, "2001:db9::1"],
  ["2002::/16 6to4 (public IPv4 inside)", "2002:808:808::1", false],
  ["2002::/16 6to4 (private IPv4 inside)", "2002:a00:1::1", true],
  ["3fff::/20 documentation", "3fff:fff::1", true, "3fff:1000::1"],
  ["5f00::/16 segment routing SIDs", "5f00:1::1", true, "5f01::1"],
  ["fc00::/7 unique-local", "fd12:3456::1", true, "fe00::1"],
  ["fe80::/10 link-local", "fe80::1", true, "fec0::1"],
]

describe("webfetch's IPv6 deny list against the special-purpose registry", () => {
  for (const [block, inside, refused, outside] of registry)
    it(block, () => {
      if (refused) expect(nonPublicReason(inside)).toBeDefined()
      else expect(nonPublicReason(inside)).toBeUndefined()
      if (outside === undefined) return
      // The edge: the first address past the block is judged on its own (public unless another block holds it).
      const beyond = nonPublicReason(outside)
      if (outside === "fec0::1") expect(beyond).toBe("site-local")
      else expect(beyond).toBeUndefined()
    })

  it("a public address stays allowed", () => {
    expect(nonPublicReason("2606:4700:4700::1111")).toBeUndefined()
    expect(nonPublicReason("2a00:1450:4001:80b::200e")).toBeUndefined()
  })
})
