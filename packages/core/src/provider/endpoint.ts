/** `host:port` of a base URL, with the scheme's default port spelled out (errors name the endpoint). */
export const endpointOf = (baseURL: string): string => {
  try {
    const url = new URL(baseURL)
    return `${url.hostname}:${url.port || (url.protocol === "https:" ? "443" : "80")}`
  } catch {
    return baseURL
  }
}
