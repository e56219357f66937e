import type { Socket, TCPSocketListener } from "bun"

/**
 * A TCP relay between the browser and the server, for dropping connections the way a network does: `cut()`
 * closes every open connection (an `EventSource` in the middle of its stream included) and refuses new ones
 * until `restore()`. Bytes pass through untouched, so Host, auth and the event stream are the server's own.
 */
export interface Relay {
  readonly url: string
  cut(): void
  restore(): void
  /** Connections accepted so far (each reconnect is one more). */
  readonly accepted: number
  stop(): void
}

interface Pair {
  client: Socket<Pair>
  upstream?: Socket<Pair>
  /** Bytes from the browser before the upstream connection opened. */
  pending: Array<Uint8Array>
  /** Bytes a socket did not take yet (backpressure), per socket, written on `drain`. */
  backlog: Map<Socket<Pair>, Array<Uint8Array>>
}

/** Writes what the socket takes now and keeps the rest for its `drain`. */
const send = (pair: Pair, socket: Socket<Pair>, chunk: Uint8Array) => {
  const queue = pair.backlog.get(socket)
  if (queue && queue.length > 0) {
    queue.push(new Uint8Array(chunk))
    return
  }
  const written = socket.write(chunk)
  if (written < chunk.byteLength) pair.backlog.set(socket, [new Uint8Array(chunk.subarray(Math.max(0, written)))])
}

const drain = (pair: Pair, socket: Socket<Pair>) => {
  const queue = pair.backlog.get(socket)
  while (queue && queue.length > 0) {
    const chunk = queue[0]!
    const written = socket.write(chunk)
    if (written < chunk.byteLength) {
      queue[0] = chunk.subarray(Math.max(0, written))
      return
    }
    queue.shift()
  }
}

export const startRelay = (target: { hostname: string; port: number }): Relay => {
  const open = new Set<Pair>()
  let refusing = false
  let accepted = 0
  const close = (pair: Pair) => {
    open.delete(pair)
    pair.client.end()
    pair.upstream?.end()
  }
  const listener: TCPSocketListener<Pair> = Bun.listen<Pair>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        if (refusing) {
          client.end()
          return
        }
        accepted++
        const pair: Pair = { client, pending: [], backlog: new Map() }
        client.data = pair
        open.add(pair)
        void Bun.connect<Pair>({
          hostname: target.hostname,
          port: target.port,
          socket: {
            open(upstream) {
              upstream.data = pair
              pair.upstream = upstream
              for (const chunk of pair.pending) send(pair, upstream, chunk)
              pair.pending = []
            },
            data(_upstream, chunk) {
              send(pair, pair.client, chunk)
            },
            drain(upstream) {
              drain(pair, upstream)
            },
            close() {
              close(pair)
            },
            error() {
              close(pair)
            },
          },
        }).catch(() => close(pair))
      },
      data(client, chunk) {
        const pair = client.data
        if (!pair) return
        if (pair.upstream) send(pair, pair.upstream, chunk)
        else pair.pending.push(new Uint8Array(chunk))
      },
      drain(client) {
        if (client.data) drain(client.data, client)
      },
      close(client) {
        if (client.data) close(client.data)
      },
      error(client) {
        if (client.data) close(client.data)
      },
    },
  })
  return {
    url: `http://127.0.0.1:${listener.port}`,
    cut() {
      refusing = true
      for (const pair of [...open]) close(pair)
    },
    restore() {
      refusing = false
    },
    get accepted() {
      return accepted
    },
    stop() {
      refusing = true
      for (const pair of [...open]) close(pair)
      listener.stop(true)
    },
  }
}
