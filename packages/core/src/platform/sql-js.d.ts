// The part of sql.js's API the Node SQLite driver uses. Declared here instead of installing its
// DefinitelyTyped package, whose Emscripten globals change the types web-tree-sitter's loader sees.
declare module "sql.js" {
  export type BindValue = string | number | Uint8Array | null

  export interface Statement {
    bind(values: ReadonlyArray<BindValue>): boolean
    step(): boolean
    getAsObject(): Record<string, unknown>
    reset(): void
    free(): boolean
  }

  export interface Database {
    run(sql: string, params?: ReadonlyArray<BindValue>): Database
    prepare(sql: string): Statement
    getRowsModified(): number
    export(): Uint8Array
    close(): void
  }

  export interface SqlJsStatic {
    Database: new (data?: ArrayLike<number> | Buffer | null) => Database
  }

  export default function initSqlJs(config?: { locateFile?: (file: string) => string }): Promise<SqlJsStatic>
}
