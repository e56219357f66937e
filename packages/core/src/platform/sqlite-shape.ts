/** A value SQLite stores or binds: what both Bun's driver and the WebAssembly one hand back and accept. */
export type SqliteValue = string | number | bigint | boolean | null | Uint8Array

/** A prepared statement. Rows come back as objects keyed by column name. */
export interface SqliteStatement<Row, Params extends ReadonlyArray<any>> {
  /** The first row, or `null` when there is none. */
  get(...params: Params): Row | null
  all(...params: Params): Array<Row>
  /** Rows one at a time, so a large result is never held whole. */
  iterate(...params: Params): IterableIterator<Row>
  /** Runs the statement for its effect; `changes` counts the rows it inserted, updated or deleted. */
  run(...params: Params): { readonly changes: number }
}

/**
 * One connection to one SQLite database: the subset of `bun:sqlite`'s API the store uses, so Bun's
 * `Database` is one as it is and another runtime's driver adapts to it.
 */
export interface SqliteClient {
  /** A prepared statement, cached per SQL text. */
  query<Row = any, Params extends ReadonlyArray<any> = Array<any>>(sql: string): SqliteStatement<Row, Params>
  /** Runs one statement for its effect (pragmas, DDL), with its parameters as one array if it has any. */
  run(sql: string, ...bindings: Array<Array<SqliteValue>>): unknown
  close(): void
}

/** What a driver opens: the connection, and how to write on it in one transaction. */
export interface SqliteConnection {
  readonly client: SqliteClient
  /** Runs `fn` inside one `BEGIN IMMEDIATE` transaction; a throw rolls everything back. Never nest. */
  immediate<A>(fn: () => A): A
}

/** A checkpoint of a WAL database done away from the host's connection (see `maintenance/retention.ts`). */
export interface Checkpointer {
  /** Starts a checkpoint unless one is running; resolves when the running one ends. */
  request(): Promise<void>
  /** Ends the worker. */
  close(): void
}

export interface SqliteShape {
  /** The runtime this driver belongs to (`"bun"`, `"node"`): what tests assert, what logs say. */
  readonly runtime: string
  /** Opens (creating the file if needed, not its folder) the database at `path`, or `:memory:`. */
  open(path: string): SqliteConnection
  /** Checkpoints for the WAL database at `path`; absent where the driver keeps no WAL (nothing to do). */
  readonly checkpointer?: (path: string) => Checkpointer
}
