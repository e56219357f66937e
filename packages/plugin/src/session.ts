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
  export interface PartTarget extends MessageTarget {
    readonly partID: string
  }
  export interface Correct extends PartTarget {
    readonly text: string
  }
  export interface Prune extends Target {
    /** Part types to remove; default both. */
    readonly types?: ReadonlyArray<PrunableType>
  }
}

/** A part type batch prune can remove. */
export type PrunableType = "tool" | "reasoning"

/** What one batch prune removed: `messages` touched, `parts` removed, `bytes` of their JSON. */
export interface PruneSummary {
  readonly sessionID: string
  readonly messages: number
  readonly parts: number
  readonly bytes: number
}

/** What one erase rewrote in the journal: `events` rewritten, `fields` tombstoned, `bytes` of content. */
export interface EraseSummary {
  readonly sessionID: string
  readonly events: number
  readonly fields: number
  readonly bytes: number
}

/** The result of admitting a prompt or notice: the id of the message it became (or will become). */
export interface Admitted {
  readonly messageID: string
}
