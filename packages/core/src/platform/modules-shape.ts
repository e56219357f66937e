export interface ModulesShape {
  /** The runtime this resolver belongs to (`"bun"`, `"node"`). */
  readonly runtime: string
  /**
   * The file an installed package name (`my-plugin`, `@scope/pkg/sub`) names when imported from a module in
   * `directory`, looked up the way the runtime looks up its own imports (`node_modules` upwards, `exports`).
   * Throws when nothing provides it: the caller reports that as the plugin's load failure.
   */
  resolve(specifier: string, directory: string): string
}
