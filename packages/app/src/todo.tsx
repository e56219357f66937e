import type { Todo } from "./types.ts"

const MARK: Record<string, string> = { completed: "✓", in_progress: "▸", cancelled: "✗", pending: "○" }

/** The session's todo list (written by the agent's `todowrite`): status mark, content, priority. */
export const TodoPanel = ({ todos }: { todos: ReadonlyArray<Todo> }) =>
  todos.length === 0 ? null : (
    <section class="todos" data-testid="todos">
      <header>
        <strong>Todo</strong>{" "}
        <span class="muted">
          {todos.filter((t) => t.status === "completed").length}/{todos.length} done
        </span>
      </header>
      <ul>
        {todos.map((todo) => (
          <li class={`todo ${todo.status}`} data-testid="todo" data-status={todo.status}>
            <span class="mark">{MARK[todo.status] ?? "○"}</span> <span>{todo.content}</span>{" "}
            <span class={`badge priority-${todo.priority}`}>{todo.priority}</span>
          </li>
        ))}
      </ul>
    </section>
  )
