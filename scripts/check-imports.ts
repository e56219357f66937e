/**
 * The import graph's guard, run by `bun run lint`: fails on an import cycle between the files of any package
 * (type-only imports included: a cycle of types is a cycle of concepts), on a cycle between packages, and on
 * an import that runs up between core's floors unless it is on the allow-list below, which
 * docs/architecture.md explains entry by entry.
 *
 * `bun run scripts/check-imports.ts --report` prints the measurement instead: folders, arrows between them,
 * arrows running up, and cycles.
 *
 * It reads import specifiers with a regular expression (`import ... from "x"`, `export ... from "x"`,
 * `import("x")`, `import "x"`), which is all this codebase writes; comments are stripped first.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

const root = resolve(import.meta.dir, "..")

/**
 * Core's floors, lowest first. A folder may import its own floor's folders and any floor below; importing a
 * floor above is an upward import. Files directly in `src/` are named by their file name.
 */
export const CORE_FLOORS: ReadonlyArray<ReadonlyArray<string>> = [
  ["platform", "id", "log.ts", "telemetry"],
  ["config", "domain"],
  ["storage"],
  ["bus"],
  ["session"],
  ["hooks", "provider", "question", "todo", "command"],
  ["lsp", "format"],
  ["tool"],
  ["permission", "mcp", "location"],
  ["turn"],
  ["maintenance"],
  ["plugin"],
  ["discovery.ts", "host.ts", "index.ts"],
]

/** Upward imports kept on purpose, as `from-folder -> to-folder`; each is explained in docs/architecture.md. */
export const ALLOWED_UPWARD: ReadonlyArray<string> = []

const SPECIFIER =
  /(?:\bimport\s*(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?|\bexport\s*(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\})\s*from\s+|\bimport\s*\(\s*)["']([^"']+)["']/g

const stripComments = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1")

const sourceFiles = (dir: string): string[] => {
  if (!existsSync(dir)) return []
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist" || name === "gen") continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path))
    else if (/\.(ts|tsx)$/.test(name) && !name.endsWith(".d.ts")) out.push(path)
  }
  return out
}

const resolveRelative = (from: string, specifier: string): string | undefined => {
  const base = resolve(dirname(from), specifier)
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate
  }
  return undefined
}

export interface Graph {
  readonly files: ReadonlyArray<string>
  readonly edges: ReadonlyMap<string, ReadonlySet<string>>
  /** Workspace packages each file imports by name (`@opencode-ai/x`). */
  readonly packages: ReadonlyMap<string, ReadonlySet<string>>
}

export const packageGraph = (packageDir: string): Graph => {
  const files = ["src", "test", "script"].flatMap((sub) => sourceFiles(join(packageDir, sub)))
  const edges = new Map<string, Set<string>>()
  const packages = new Map<string, Set<string>>()
  for (const file of files) {
    const targets = new Set<string>()
    const named = new Set<string>()
    for (const match of stripComments(readFileSync(file, "utf8")).matchAll(SPECIFIER)) {
      const specifier = match[1]!
      if (specifier.startsWith(".")) {
        const target = resolveRelative(file, specifier)
        if (target) targets.add(target)
      } else if (specifier.startsWith("@opencode-ai/")) named.add(specifier.split("/").slice(0, 2).join("/"))
    }
    edges.set(file, targets)
    packages.set(file, named)
  }
  return { files, edges, packages }
}

/** Strongly connected components with more than one member (or a self-import): the cycles. */
export const cycles = <T>(nodes: Iterable<T>, next: (node: T) => Iterable<T>): T[][] => {
  const index = new Map<T, number>()
  const low = new Map<T, number>()
  const stack: T[] = []
  const onStack = new Set<T>()
  const found: T[][] = []
  let counter = 0
  const visit = (node: T) => {
    index.set(node, counter)
    low.set(node, counter)
    counter++
    stack.push(node)
    onStack.add(node)
    for (const target of next(node)) {
      if (!index.has(target)) {
        visit(target)
        low.set(node, Math.min(low.get(node)!, low.get(target)!))
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!))
    }
    if (low.get(node) === index.get(node)) {
      const component: T[] = []
      let member: T
      do {
        member = stack.pop()!
        onStack.delete(member)
        component.push(member)
      } while (member !== node)
      if (component.length > 1 || [...next(node)].includes(node)) found.push(component)
    }
  }
  for (const node of nodes) if (!index.has(node)) visit(node)
  return found
}

/** The folder of a core source file: its first path segment under `src/` (a file directly there: its name). */
const coreFolder = (srcDir: string, file: string) => relative(srcDir, file).split("/")[0]!

export interface FolderReport {
  readonly folders: ReadonlyArray<string>
  readonly arrows: ReadonlyArray<readonly [string, string, number]>
  readonly upward: ReadonlyArray<readonly [string, string, number]>
  readonly mutual: ReadonlyArray<readonly [string, string]>
  readonly unplaced: ReadonlyArray<string>
}

export const coreFolders = (graph: Graph, srcDir: string, floors = CORE_FLOORS): FolderReport => {
  const floorOf = new Map<string, number>()
  floors.forEach((floor, rank) => floor.forEach((folder) => floorOf.set(folder, rank)))
  const counts = new Map<string, number>()
  const folders = new Set<string>()
  for (const [file, targets] of graph.edges) {
    if (!file.startsWith(srcDir + "/")) continue
    const from = coreFolder(srcDir, file)
    folders.add(from)
    for (const target of targets) {
      if (!target.startsWith(srcDir + "/")) continue
      const to = coreFolder(srcDir, target)
      if (to === from) continue
      const key = `${from} -> ${to}`
      counts.set(key, (counts.get(key) ?? 0) + 1)
    }
  }
  const arrows = [...counts].map(([key, n]) => [...(key.split(" -> ") as [string, string]), n] as const).sort()
  const upward = arrows.filter(([from, to]) => (floorOf.get(to) ?? Infinity) > (floorOf.get(from) ?? Infinity))
  const mutual = arrows
    .filter(([from, to]) => from < to && counts.has(`${to} -> ${from}`))
    .map(([from, to]) => [from, to] as const)
  const unplaced = [...folders].filter((folder) => !floorOf.has(folder)).sort()
  return { folders: [...folders].sort(), arrows, upward, mutual, unplaced }
}

const packageDirs = () =>
  readdirSync(join(root, "packages"))
    .map((name) => join(root, "packages", name))
    .filter((dir) => existsSync(join(dir, "package.json")))

const main = () => {
  const report = process.argv.includes("--report")
  const problems: string[] = []
  const packageImports = new Map<string, Set<string>>()
  const graphs = new Map<string, Graph>()
  for (const dir of packageDirs()) {
    const name = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name as string
    const graph = packageGraph(dir)
    graphs.set(name, graph)
    const used = new Set<string>()
    for (const [file, named] of graph.packages) {
      if (!file.startsWith(join(dir, "src"))) continue
      for (const other of named) if (other !== name) used.add(other)
    }
    packageImports.set(name, used)
    for (const cycle of cycles(graph.files, (file) => graph.edges.get(file) ?? [])) {
      const members = cycle.map((file) => relative(root, file)).sort()
      problems.push(`import cycle in ${name} (${members.length} files):\n    ${members.join("\n    ")}`)
    }
  }
  for (const cycle of cycles(packageImports.keys(), (name) => packageImports.get(name) ?? [])) {
    problems.push(`import cycle between packages: ${cycle.sort().join(", ")}`)
  }
  const coreDir = join(root, "packages", "core", "src")
  const core = coreFolders(graphs.get("@opencode-ai/core")!, coreDir)
  for (const folder of core.unplaced) problems.push(`core folder ${folder} is on no floor (scripts/check-imports.ts)`)
  const allowed = new Set(ALLOWED_UPWARD)
  for (const [from, to, n] of core.upward) {
    if (!allowed.has(`${from} -> ${to}`)) problems.push(`upward import in core: ${from} -> ${to} (${n} imports)`)
  }
  for (const entry of allowed) {
    if (!core.upward.some(([from, to]) => `${from} -> ${to}` === entry)) {
      problems.push(`allowed upward import ${entry} no longer exists: remove it from the allow-list`)
    }
  }
  // The platform seam: a runtime's interface never imports Bun's implementation, and only the platform
  // layer asks which runtime it is on.
  const platformDir = join(coreDir, "platform")
  for (const [file, targets] of graphs.get("@opencode-ai/core")!.edges) {
    if (!file.startsWith(coreDir + "/")) continue
    const name = relative(coreDir, file)
    if (!name.startsWith("platform/") && /typeof\s+Bun\b/.test(stripComments(readFileSync(file, "utf8"))))
      problems.push(`core/src/${name} checks \`typeof Bun\`: only platform/ may ask which runtime it is on`)
    if (/^platform\/(.*-shape|node.*)\.ts$/.test(name)) {
      for (const target of targets) {
        if (relative(platformDir, target).startsWith("bun"))
          problems.push(`core/src/${name} imports Bun's implementation ${relative(coreDir, target)}`)
      }
    }
  }
  if (report) {
    const fileCycles = [...graphs.values()].flatMap((graph) => cycles(graph.files, (f) => graph.edges.get(f) ?? []))
    console.log(`core folders: ${core.folders.length}`)
    console.log(`core folder arrows: ${core.arrows.length}`)
    console.log(`core upward arrows: ${core.upward.length}`)
    for (const [from, to, n] of core.upward) console.log(`  ${from} -> ${to} (${n})`)
    console.log(`core folder pairs importing each other: ${core.mutual.length}`)
    for (const [a, b] of core.mutual) console.log(`  ${a} <-> ${b}`)
    console.log(`file cycles (all packages): ${fileCycles.length}`)
    for (const cycle of fileCycles) console.log(`  ${cycle.map((file) => relative(root, file)).join(" ")}`)
    if (process.argv.includes("--arrows")) for (const [from, to, n] of core.arrows) console.log(`${from} -> ${to} ${n}`)
    return
  }
  if (problems.length > 0) {
    console.error(problems.join("\n"))
    console.error(`\n${problems.length} import problem(s); see docs/architecture.md#layers-inside-core`)
    process.exit(1)
  }
}

if (import.meta.main) main()
