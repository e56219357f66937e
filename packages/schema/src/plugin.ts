import { Schema } from "effect"

/** A plugin the host tried to load: its id once loaded, where it came from, and why it failed if it did. */
export const PluginStatus = Schema.Struct({
  id: Schema.optional(Schema.String),
  source: Schema.String,
  status: Schema.Literals(["loaded", "failed"]),
  flavour: Schema.optional(Schema.Literals(["promise", "effect"])),
  error: Schema.optional(Schema.String),
}).annotate({ identifier: "PluginStatus" })
export type PluginStatus = typeof PluginStatus.Type
