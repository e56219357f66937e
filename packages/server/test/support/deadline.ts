/**
 * The promise's value, or `"timeout"` when it has not settled `ms` after now. A deadline for awaiting a
 * condition that must come soon (never a sleep standing in for one); the timer is cleared either way.
 */
export const within = async <A>(promise: Promise<A>, ms: number): Promise<A | "timeout"> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** Like `within`, but a missed deadline rejects, naming what did not arrive. */
export const before = async <A>(promise: Promise<A>, ms: number, what: string): Promise<A> => {
  const result = await within(promise, ms)
  if (result === "timeout") throw new Error(`${what} did not arrive within ${ms} ms`)
  return result
}
