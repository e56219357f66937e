// An OpenAI-compatible chat model on loopback for the TUI bench: every request streams `COUNT` words, one
// delta every `EVERY` ms. Run as a child process (the bench's own loop polls the terminal synchronously).
// Prints its port on stdout.
const [count = 2000, every = 5] = process.argv.slice(2).map(Number)
const encoder = new TextEncoder()
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: () => {
    let sent = 0
    let timer: ReturnType<typeof setInterval> | undefined
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const chunk = (delta: object, finish: string | null = null) =>
          controller.enqueue(
            encoder.encode(
              `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "pace", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
            ),
          )
        chunk({ role: "assistant", content: "" })
        timer = setInterval(() => {
          if (sent++ < count) return chunk({ content: `word${sent} ` })
          clearInterval(timer)
          chunk({}, "stop")
          controller.enqueue(encoder.encode("data: [DONE]\n\n"))
          controller.close()
        }, every)
      },
      cancel: () => clearInterval(timer),
    })
    return new Response(body, { headers: { "content-type": "text/event-stream" } })
  },
})
console.log(server.port)
