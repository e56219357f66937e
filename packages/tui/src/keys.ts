/** Every key of the TUI, as `?` shows it and docs/tui.md lists it. */
export const KEYS: ReadonlyArray<{ readonly where: string; readonly keys: ReadonlyArray<readonly [string, string]> }> =
  [
    {
      where: "anywhere",
      keys: [
        ["Enter", "send the prompt (or a typed answer to a question)"],
        ["Shift+Enter, Ctrl+J", "new line"],
        ["↑ / ↓", "prompt history (on the first / last line)"],
        ["Tab", "complete /command or @file; else switch between prompt and transcript"],
        ["Esc", "interrupt the running turn (closes an overlay first)"],
        ["Ctrl+C twice", "exit (the first clears the prompt)"],
        ["Ctrl+S", "session list"],
        ["Ctrl+N", "new session (empty prompt)"],
        ["?", "this help (empty prompt)"],
      ],
    },
    {
      where: "permission card (empty prompt)",
      keys: [
        ["o", "allow once"],
        ["a", "allow always: the patterns shown, for the rest of the session"],
        ["r", "reject"],
        ["R", "reject with a message for the model"],
      ],
    },
    {
      where: "question card",
      keys: [
        ["1-9", "choose an option (empty prompt)"],
        ["text + Enter", "answer in your own words"],
        ["Ctrl+D", "dismiss the question"],
      ],
    },
    {
      where: "transcript (Tab)",
      keys: [
        ["↑ ↓ / j k", "select a message, tool call or reasoning"],
        ["Enter / Space", "expand: tool input, output and diff; reasoning text"],
        ["x", "retract the selected user message (confirms)"],
        ["p", "remove the selected tool output or reasoning (confirms)"],
        ["f", "fork a new session up to the selected message"],
        ["v", "stage a revert to before the selected message (confirms)"],
        ["PgUp / PgDn", "scroll"],
      ],
    },
    {
      where: "session list (Ctrl+S)",
      keys: [
        ["type", "search"],
        ["Enter", "open"],
        ["Ctrl+N / Ctrl+R / Ctrl+D / Ctrl+F", "new / rename / delete (confirms) / fork"],
      ],
    },
  ]

/** Every key as one row of the help overlay (searchable), then the slash commands. */
export const helpItems = (
  commands: ReadonlyArray<{ name: string; description: string }>,
): Array<{ id: string; label: string; detail: string }> => [
  ...KEYS.flatMap((group) =>
    group.keys.map(([key, what]) => ({
      id: `${group.where}:${key}`,
      label: key.padEnd(22),
      detail: `${what} · ${group.where}`,
    })),
  ),
  ...commands.map((c) => ({ id: `/${c.name}`, label: `/${c.name}`.padEnd(22), detail: c.description })),
]
