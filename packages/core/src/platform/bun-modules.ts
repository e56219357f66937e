import { requireBun } from "./bun-runtime.ts"
import type { ModulesShape } from "./modules-shape.ts"

/** Bun's implementation: the default of `Modules`. */
export const bunModules = (): ModulesShape => ({
  runtime: "bun",
  resolve: (specifier, directory) => requireBun("Modules").resolveSync(specifier, directory),
})
