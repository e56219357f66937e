/**
 * A tool's icon, drawn as inline SVG (no icon font, no request): a terminal for shell commands, a page
 * for reads, a pencil for edits and writes, a magnifier for searches, a globe for fetches, a branch for
 * subagents, a checklist for todos, a question mark for questions, a cog for anything else.
 */
const PATHS: Readonly<Record<string, string>> = {
  shell: "M4 6l4 4-4 4M10 15h6",
  read: "M6 3h6l4 4v10H6zM12 3v4h4",
  edit: "M4 16l1-4 8-8 3 3-8 8zM12 5l3 3",
  search: "M9 4a5 5 0 1 1 0 10A5 5 0 0 1 9 4zM12.5 12.5L16 16",
  fetch: "M10 3a7 7 0 1 1 0 14a7 7 0 0 1 0-14zM3 10h14M10 3c-3 4-3 10 0 14M10 3c3 4 3 10 0 14",
  task: "M6 4v12M6 10c0-3 8-2 8-6M14 4v0M6 16v0",
  todo: "M4 5l1.5 1.5L8 4M10 5h6M4 11l1.5 1.5L8 10M10 11h6M10 16h6",
  question: "M7 7a3 3 0 1 1 4 2.8c-.7.3-1 .8-1 1.5V12M10 15v.5",
  other:
    "M10 7a3 3 0 1 1 0 6a3 3 0 0 1 0-6zM10 2v3M10 15v3M2 10h3M15 10h3M4.5 4.5l2 2M13.5 13.5l2 2M4.5 15.5l2-2M13.5 6.5l2-2",
}

const KIND: Readonly<Record<string, string>> = {
  bash: "shell",
  shell: "shell",
  read: "read",
  list: "read",
  ls: "read",
  edit: "edit",
  write: "edit",
  patch: "edit",
  apply_patch: "edit",
  multiedit: "edit",
  grep: "search",
  glob: "search",
  find: "search",
  codesearch: "search",
  webfetch: "fetch",
  websearch: "fetch",
  task: "task",
  todowrite: "todo",
  todoread: "todo",
  question: "question",
}

export const ToolIcon = ({ name }: { name: string }) => {
  const kind = KIND[name] ?? "other"
  return (
    <svg class={`tool-icon icon-${kind}`} viewBox="0 0 20 20" aria-hidden="true">
      <path d={PATHS[kind]!} />
    </svg>
  )
}
