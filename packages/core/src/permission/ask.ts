import type { SessionEvent } from "@opencode-ai/schema"

/**
 * A pending permission request as the host keeps it: the `permission.v2.asked` event's data (upstream's
 * `PermissionV2Request` fields, plus the tool item it waits for and the stored call that runs once it is
 * answered), with its session and the time it was asked.
 */
export type PermissionRequest = typeof SessionEvent.PermissionAsked.data.Type & {
  readonly sessionID: string
  readonly time: number
}

/**
 * A request as served (`GET .../permission`): upstream's shape, with what a person needs to decide in
 * `metadata` (`diff` for file changes, `input`, the call's arguments) and the tool and title beside it.
 */
export const servedRequest = (request: PermissionRequest) => {
  const { input, itemID: _itemID, ...rest } = request
  return { ...rest, metadata: { ...request.metadata, input } }
}
