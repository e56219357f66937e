export interface HeapShape {
  /** The runtime this heap belongs to (`"bun"`, `"node"`). */
  readonly runtime: string
  /**
   * Collects garbage now, where the runtime allows it; a no-op elsewhere. Long batch jobs (erasing a large
   * journal) call it between chunks so peak memory stays at a chunk's worth.
   */
  collect(): void
}
