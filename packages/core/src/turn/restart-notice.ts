/** The notice a resumed session receives, as a host synthetic message, before its turn continues. */
export const RESTART_NOTICE =
  "The server restarted while you were working. Continue where you left off; " +
  "re-check anything you were in the middle of changing before relying on it."
