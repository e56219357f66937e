import { Layer } from "effect"
import { Bus } from "../bus/bus.ts"
import { ProjectorsLive } from "../session/projector.ts"
import { Session } from "../session/session.ts"
import { Database } from "./database.ts"

/**
 * The event-sourced store: database, projectors, bus and the session read model, wired together.
 * `persist` turns the event journal on.
 */
export const StoreLayer = (options: { readonly path: string; readonly persist: boolean }) => {
  const database = Database.layer(options.path)
  const bus = Bus.layer({ persist: options.persist }).pipe(Layer.provide(ProjectorsLive))
  return Session.layer.pipe(Layer.provideMerge(bus), Layer.provideMerge(database))
}
