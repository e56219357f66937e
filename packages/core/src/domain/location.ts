import type { LocationInfo } from "@opencode-ai/schema"
import { createHash } from "node:crypto"

/**
 * A location as upstream OpenCode v2 reports it. This host has no project registry: a location's project
 * is its directory, with an id derived from the resolved path (stable across restarts and databases).
 */
export const locationInfo = (directory: string): LocationInfo => ({
  directory,
  project: { id: projectID(directory), directory },
})

/** `prj_` and the first 20 hex digits of the path's SHA-256. */
export const projectID = (directory: string) =>
  `prj_${createHash("sha256").update(directory).digest("hex").slice(0, 20)}`
