import type { EraseSummary, InputAdmitted, PrunableType, PruneSummary } from "@opencode-ai/schema"

/** Inputs of the session operations, shared by both plugin flavours. */
export namespace SessionInput {
  export interface Target {
    readonly sessionID: string
  }
  export interface Create {
    readonly title?: string
    /**
     * An absolute path naming an existing directory (no NUL), stored as its real path; anything else fails
     * with `Session.InvalidInputError` (`field: "directory"`) and creates nothing. The same rule as
     * `POST /api/session`. Default: the host process's working directory.
     */
    readonly directory?: string
    readonly agent?: string
  }
  export interface Prompt extends Target {
    readonly text: string
    readonly agent?: string
  }
  export interface Synthetic extends Target {
    readonly text: string
    readonly description?: string
    /** Wake the session to answer the notice. Default true. */
    readonly resume?: boolean
  }
  export interface Messages extends Target {
    readonly cursor?: string
    /** 1..200, default 100. */
    readonly limit?: number
    readonly order?: "asc" | "desc"
  }
  export interface MessageTarget extends Target {
    readonly messageID: string
  }
  export interface ItemTarget extends MessageTarget {
    /** The content item of an assistant message (its text, reasoning or tool id). */
    readonly itemID: string
  }
  export interface Correct extends MessageTarget {
    /**
     * The assistant text item to correct; omit it to correct a user or synthetic message's own text or a
     * compaction's summary.
     */
    readonly itemID?: string
    readonly text: string
  }
  export interface Prune extends Target {
    /** Item types to take out; default both. */
    readonly types?: ReadonlyArray<PrunableType>
  }
}

export type { EraseSummary, PrunableType, PruneSummary }

/** The result of admitting a prompt or notice: upstream's `SessionInputAdmitted` (`id` is the message id). */
export type Admitted = InputAdmitted
