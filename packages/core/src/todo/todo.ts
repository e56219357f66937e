import type { Todo } from "@opencode-ai/schema"
import { Context, Effect, Layer } from "effect"
import { Bus } from "../bus/bus.ts"
import { draft } from "../bus/event.ts"
import { SessionNotFoundError } from "../domain/error.ts"
import { SessionEvent } from "../domain/event.ts"
import { Database } from "../storage/database.ts"

export interface TodosShape {
  /** The session's todo list, in the order it was written (empty before the first `todowrite`). */
  list(sessionID: string): Effect.Effect<ReadonlyArray<Todo>, SessionNotFoundError>
  /** Replaces the list: one durable `todo.updated` carrying all of it. */
  write(sessionID: string, todos: ReadonlyArray<Todo>): Effect.Effect<void, SessionNotFoundError>
}

/** A session's todo list: written whole by `todowrite`, projected to `session_todo`, replayed like the rest. */
export class Todos extends Context.Service<Todos, TodosShape>()("@opencode-ai/core/todo/Todos") {
  static readonly layer = Layer.effect(
    Todos,
    Effect.gen(function* () {
      const bus = yield* Bus
      const { client } = yield* Database
      const readSession = client.query<{ id: string }, [string]>("SELECT id FROM session WHERE id = ?")
      const readTodos = client.query<{ data: string }, [string]>("SELECT data FROM session_todo WHERE session_id = ?")
      const implementation = Todos.of({
        list: Effect.fn("Todos.list")((sessionID) =>
          Effect.suspend(() =>
            readSession.get(sessionID)
              ? Effect.succeed(JSON.parse(readTodos.get(sessionID)?.data ?? "[]") as ReadonlyArray<Todo>)
              : Effect.fail(new SessionNotFoundError({ sessionID })),
          ),
        ),
        write: Effect.fn("Todos.write")((sessionID, todos) =>
          bus
            .transact<SessionNotFoundError>(sessionID, () =>
              readSession.get(sessionID)
                ? [
                    draft(SessionEvent.TodoUpdated, {
                      todos: todos.map((t) => ({ content: t.content, status: t.status, priority: t.priority })),
                    }),
                  ]
                : { reject: new SessionNotFoundError({ sessionID }) },
            )
            .pipe(Effect.asVoid),
        ),
      })
      return implementation
    }),
  )
}
