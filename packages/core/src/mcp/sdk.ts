/**
 * The MCP SDK, loaded on first use: it is a large part of the host's start-up memory, and a host with no
 * MCP server configured never needs it. Every runtime use goes through `loadSdk`; other modules import
 * its types only.
 */
const load = async () => {
  const [client, sse, stdio, streamable, types] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/sse.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ])
  return {
    Client: client.Client,
    SSEClientTransport: sse.SSEClientTransport,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: streamable.StreamableHTTPClientTransport,
    ErrorCode: types.ErrorCode,
    McpError: types.McpError,
  }
}

export type McpSdk = Awaited<ReturnType<typeof load>>

let loading: Promise<McpSdk> | undefined
let loaded: McpSdk | undefined

/** The SDK, imported once. */
export const loadSdk = (): Promise<McpSdk> => (loading ??= load().then((sdk) => (loaded = sdk)))

/** Whether `cause` is the SDK's request timeout (false while the SDK was never loaded: nothing could time out). */
export const isRequestTimeout = (cause: unknown): boolean =>
  loaded !== undefined && cause instanceof loaded.McpError && cause.code === loaded.ErrorCode.RequestTimeout
