import { Context } from "effect"
import { bunModules } from "./bun-modules.ts"
import type { ModulesShape } from "./modules-shape.ts"

export type { ModulesShape } from "./modules-shape.ts"

/** How the platform finds an installed package (plugins named in config). Bun's `Bun.resolveSync` is the default. */
export const Modules = Context.Reference<ModulesShape>("@opencode-ai/core/platform/Modules", {
  defaultValue: bunModules,
})
