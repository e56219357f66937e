import { useEffect, useState } from "preact/hooks"

/**
 * Client-side routes. The server answers the same page at each of these paths, so every one is a deep
 * link: `/` (sessions), `/session/<sessionID>`, `/storage`.
 */
export type Route =
  | { readonly name: "sessions" }
  | { readonly name: "session"; readonly sessionID: string }
  | { readonly name: "storage" }
  | { readonly name: "missing"; readonly path: string }

export const parseRoute = (pathname: string): Route => {
  if (pathname === "/" || pathname === "") return { name: "sessions" }
  if (/^\/storage\/?$/.test(pathname)) return { name: "storage" }
  const session = /^\/session\/(ses_[0-9A-Za-z]+)\/?$/.exec(pathname)
  if (session) return { name: "session", sessionID: session[1]! }
  return { name: "missing", path: pathname }
}

const CHANGE = "opencode2:navigate"

export const navigate = (path: string) => {
  if (path === location.pathname) return
  history.pushState(null, "", path)
  dispatchEvent(new Event(CHANGE))
}

export const useRoute = (): Route => {
  const [route, setRoute] = useState(() => parseRoute(location.pathname))
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.pathname))
    addEventListener("popstate", update)
    addEventListener(CHANGE, update)
    return () => {
      removeEventListener("popstate", update)
      removeEventListener(CHANGE, update)
    }
  }, [])
  return route
}

/** Follows in-app links without reloading the page (plain clicks only; modified clicks open tabs). */
export const onLink = (event: MouseEvent) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
    return
  const anchor = (event.target as Element | null)?.closest?.("a")
  const href = anchor?.getAttribute("href")
  if (!anchor || !href || !href.startsWith("/") || anchor.target) return
  event.preventDefault()
  navigate(href)
}
