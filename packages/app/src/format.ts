/** Display helpers. */

export const bytes = (value: number) => {
  if (!Number.isFinite(value)) return "-"
  if (value < 1024) return `${value} B`
  const units = ["KB", "MB", "GB", "TB"]
  let n = value / 1024
  let unit = 0
  while (n >= 1024 && unit < units.length - 1) {
    n /= 1024
    unit++
  }
  return `${n < 10 ? n.toFixed(1) : Math.round(n)} ${units[unit]}`
}

export const ago = (time: number, now = Date.now()) => {
  const seconds = Math.max(0, Math.round((now - time) / 1000))
  if (seconds < 5) return "just now"
  if (seconds < 60) return `${seconds}s ago`
  const minutes = Math.round(seconds / 60)
  if (minutes < 60) return `${minutes}m ago`
  const hours = Math.round(minutes / 60)
  if (hours < 48) return `${hours}h ago`
  return new Date(time).toLocaleDateString()
}

export const stamp = (time: number) => new Date(time).toLocaleString()

export const json = (value: unknown) => {
  if (typeof value === "string") return value
  try {
    return JSON.stringify(value, null, 2) ?? String(value)
  } catch {
    return String(value)
  }
}

/** A model ref (`{ providerID, id }`) as `provider/model`. */
export const modelName = (model: unknown) =>
  typeof model === "string"
    ? model
    : model && typeof model === "object" && "providerID" in model && "id" in model
      ? `${String((model as { providerID: string }).providerID)}/${String((model as { id: string }).id)}`
      : ""

/** `1 file`, `3 files`. */
export const plural = (n: number, noun: string) => `${n.toLocaleString()} ${noun}${n === 1 ? "" : "s"}`
