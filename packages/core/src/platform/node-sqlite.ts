import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import type { Database as SqlJsDatabase, SqlJsStatic, Statement } from "sql.js"
import type { SqliteClient, SqliteConnection, SqliteShape, SqliteStatement, SqliteValue } from "./sqlite-shape.ts"

/** sql.js binds numbers, strings, blobs and null: booleans become 0/1 (as in `bun:sqlite`), `undefined` null. */
const bindable = (params: ReadonlyArray<unknown>): Array<string | number | Uint8Array | null> =>
  params.map((value) =>
    value === undefined || value === null
      ? null
      : typeof value === "boolean"
        ? Number(value)
        : typeof value === "bigint"
          ? Number(value)
          : (value as string | number | Uint8Array),
  )

/** A statement that cannot write the file: nothing to persist after it. */
const READ_ONLY = /^\s*(select\b|pragma\s+\w+\s*;?\s*$)/i

/**
 * SQLite compiled to WebAssembly (sql.js), for runtimes without a native driver (plain Node). sql.js holds
 * the database in memory, so this driver loads the file when it opens and writes the whole database back
 * to it (to a sibling, then renamed into place) after every statement outside a transaction and after
 * every commit. Its limits: one process per file (no locking between processes), no WAL (the journal
 * pragma is a no-op here), and a write costs a copy of the database, which suits tests and small stores,
 * not a large host.
 */
export const nodeSqlite = (sql: SqlJsStatic): SqliteShape => ({
  runtime: "node",
  open: (path) => open(sql, path),
})

const open = (sql: SqlJsStatic, path: string): SqliteConnection => {
  const file = path === ":memory:" ? undefined : path
  const db: SqlJsDatabase = new sql.Database(file && existsSync(file) ? readFileSync(file) : undefined)
  const statements = new Map<string, SqliteStatement<any, Array<any>>>()
  let inTransaction = false

  const persist = () => {
    if (!file || inTransaction) return
    const temporary = `${file}.${process.pid}.tmp`
    writeFileSync(temporary, db.export())
    renameSync(temporary, file)
  }
  // Each use binds afresh and resets at the end, so a cached statement never holds a half-read result.
  const using = <A>(text: string, statement: Statement, params: ReadonlyArray<unknown>, use: () => A): A => {
    try {
      if (params.length > 0) statement.bind(bindable(params))
      return use()
    } finally {
      statement.reset()
      if (!READ_ONLY.test(text)) persist()
    }
  }
  const prepare = <Row, Params extends ReadonlyArray<any>>(text: string): SqliteStatement<Row, Params> => {
    const statement = db.prepare(text)
    return {
      get: (...params) =>
        using(text, statement, params, () => (statement.step() ? (statement.getAsObject() as Row) : null)),
      all: (...params) =>
        using(text, statement, params, () => {
          const rows: Array<Row> = []
          while (statement.step()) rows.push(statement.getAsObject() as Row)
          return rows
        }),
      iterate: function* (...params) {
        let done = false
        try {
          if (params.length > 0) statement.bind(bindable(params))
          while (statement.step()) yield statement.getAsObject() as Row
          done = true
        } finally {
          statement.reset()
          if (done && !READ_ONLY.test(text)) persist()
        }
      },
      run: (...params) =>
        using(text, statement, params, () => {
          while (statement.step()) {}
          return { changes: db.getRowsModified() }
        }),
    }
  }

  const client: SqliteClient = {
    query: <Row, Params extends ReadonlyArray<any>>(text: string) => {
      let statement = statements.get(text)
      if (!statement) statements.set(text, (statement = prepare(text)))
      return statement as unknown as SqliteStatement<Row, Params>
    },
    run: (text: string, ...bindings: Array<Array<SqliteValue>>) => {
      const params = bindings[0] ?? []
      db.run(text, params.length > 0 ? bindable(params) : undefined)
      if (!READ_ONLY.test(text)) persist()
    },
    close: () => {
      persist()
      db.close()
    },
  }
  return {
    client,
    immediate: <A>(fn: () => A): A => {
      db.run("BEGIN IMMEDIATE")
      inTransaction = true
      let result: A
      try {
        result = fn()
      } catch (error) {
        inTransaction = false
        db.run("ROLLBACK")
        throw error
      }
      try {
        db.run("COMMIT")
      } finally {
        inTransaction = false
      }
      persist()
      return result
    },
  }
}
