/**
 * Reading byte streams as text in tests (child process output, SSE response bodies): the one waiter the
 * tests of every package use (the server's `test/support/stream.ts` re-exports it), so none of them
 * sleeps or polls for output.
 */

/**
 * Reads `stream` until `done(text)` holds for the text so far (or the stream ends); returns that text and the
 * reader, still open: `readRest` reads on, `reader.cancel()` closes a stream that would not end (SSE), and
 * `reader.releaseLock()` hands it back.
 */
export const readUntil = async (stream: ReadableStream<Uint8Array>, done: (text: string) => boolean) => {
  const reader = stream.getReader()
  const decoder = new TextDecoder()
  let text = ""
  while (!done(text)) {
    const chunk = await reader.read()
    if (chunk.done) break
    text += decoder.decode(chunk.value, { stream: true })
  }
  return { text, reader }
}

/** Reads the rest of a reader as text. */
export const readRest = async (reader: ReadableStreamDefaultReader<Uint8Array>) => {
  const decoder = new TextDecoder()
  let text = ""
  for (;;) {
    const chunk = await reader.read()
    if (chunk.done) return text + decoder.decode()
    text += decoder.decode(chunk.value, { stream: true })
  }
}
