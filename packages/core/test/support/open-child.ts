/**
 * Opens the database at argv[2] the way every process does (`Database.open`), after saying so on stdout,
 * and reports the outcome: `opened` or `failed: <message>`. Used while another connection holds a write
 * transaction on the same file.
 */
import { Database } from "../../src/storage/database.ts"

const path = process.argv[2]!
process.stdout.write("opening\n")
try {
  const database = Database.open(path)
  database.client.close()
  process.stdout.write("opened\n")
} catch (cause) {
  process.stdout.write(`failed: ${(cause as Error).message}\n`)
}
