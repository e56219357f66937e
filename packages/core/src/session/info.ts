/** A session as served, and cursor pages: declared once in `@opencode-ai/plugin`, re-exported here. */
export { Page, SessionInfo } from "@opencode-ai/plugin"
