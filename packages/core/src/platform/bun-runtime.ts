/**
 * The default platform is Bun's, and it is only usable on Bun: on any other runtime an edge that forgot to
 * provide its platform layer gets this error at the first use, never a half-working default.
 */
export const requireBun = (service: string): typeof Bun => {
  if (typeof Bun === "undefined")
    throw new Error(`${service}: not running on Bun; provide this runtime's platform layer (e.g. NodePlatform)`)
  return Bun
}
