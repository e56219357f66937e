import type { SessionError } from "./error.ts"
import type { PromiseEvents } from "./event.ts"
import type { HookEvents, HookName } from "./hook.ts"
import type { Message, Page, SessionInfo } from "./message.ts"
import type { PromiseToolRegistry } from "./tool.ts"
import type { Admitted, EraseSummary, PruneSummary, SessionInput } from "./session.ts"

/** A hook callback; the host awaits it. Throwing fails the turn it belongs to (recorded on the session). */
export type HookCallback<K extends HookName> = (event: HookEvents[K]) => void | Promise<void>

/**
 * Session operations for Promise plugins. Every failure rejects with a plain `{ _tag, ...fields, message }`
 * object (see {@link SessionError}); compare `_tag`.
 *
 * Mutations (`message.update`, `message.remove`, `item.remove`) apply between turns only: while a turn runs
 * or waits to resume they reject with `Session.BusyError` and change nothing; retry later with backoff (a
 * retry is not a reservation: a new turn may win again). Removed content is no longer visible or used —
 * stored view, reopened/replayed session, live subscribers and the next model request agree — but this is
 * not erasure of earlier journal payloads; that is the separate erase operation.
 */
export interface PromiseSession {
  /** Registers a hook callback; returns its disposer. Registrations are also disposed when the plugin unloads. */
  hook<K extends HookName>(name: K, callback: HookCallback<K>): () => void
  get(input: SessionInput.Target): Promise<SessionInfo>
  create(input?: SessionInput.Create): Promise<SessionInfo>
  /** Admits a user prompt (the `prompt` hook runs first); the turn runs asynchronously. */
  prompt(input: SessionInput.Prompt): Promise<Admitted>
  /** Admits a notice (the `synthetic` hook runs first); `resume` (default true) wakes the session. */
  synthetic(input: SessionInput.Synthetic): Promise<Admitted>
  interrupt(input: SessionInput.Target): Promise<void>
  /** Resolves when the session is idle. */
  wait(input: SessionInput.Target): Promise<void>
  /** Continues the session without adding a message (also resumes a turn suspended by a restart). */
  resume(input: SessionInput.Target): Promise<void>
  messages(input: SessionInput.Messages): Promise<Page<Message>>
  /**
   * Prunes every tool call and removes every reasoning item (or only `types`) of the session's completed assistant messages, as
   * one replayable event, keeping prompts, notices and final text. Between turns only (`Session.BusyError`).
   * The same result and errors as `POST /api/session/:id/prune`.
   */
  prune(input: SessionInput.Prune): Promise<PruneSummary>
  /**
   * Erases the journaled payloads of superseded content (corrected, retracted, removed, pruned) and
   * reclaims the bytes from every database file. The same result and errors as `POST /api/session/:id/erase`.
   */
  erase(input: SessionInput.Target): Promise<EraseSummary>
  readonly message: {
    get(input: SessionInput.MessageTarget): Promise<Message>
    /**
     * Corrects a text: a user or synthetic message's own (no `itemID`), or an assistant text item's. Ids and
     * role unchanged. Resolves to the updated message.
     */
    update(input: SessionInput.Correct): Promise<Message>
    /** Retracts a user or synthetic message behind a host-rendered placeholder. Resolves to the updated message. */
    remove(input: SessionInput.MessageTarget): Promise<Message>
  }
  readonly item: {
    /**
     * Takes an item out of a completed assistant message: a tool call is pruned (its input and output leave,
     * the item stays with `time.pruned`), a reasoning item is removed. Resolves to the updated message.
     */
    remove(input: SessionInput.ItemTarget): Promise<Message>
  }
}

export interface PromisePluginContext {
  /** This plugin's id; messages it admits carry origin `plugin:<id>`. */
  readonly id: string
  /** The directory the host runs in. */
  readonly directory: string
  readonly session: PromiseSession
  /** Registers tools the model may call (see `PromiseToolDefinition`). */
  readonly tool: PromiseToolRegistry
  /** The host's events, after commit and in order (see `PromiseEvents`). */
  readonly event: PromiseEvents
  /** Logs an info line through the host's logger (stderr), annotated with `plugin=<id>` and `fields`. */
  log(message: string, fields?: Record<string, unknown>): void
}

/** A Promise-flavoured plugin. `setup` may return a cleanup function, run on unload. */
export interface PromisePlugin {
  readonly id: string
  setup(ctx: PromisePluginContext): void | (() => void | Promise<void>) | Promise<void | (() => void | Promise<void>)>
}

export type { SessionError }
