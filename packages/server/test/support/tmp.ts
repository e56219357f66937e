// One temporary-directory helper for every package's tests (core's), removed when the test file finishes.
export { tempDb, tempDir, writeFileAt } from "../../../core/test/support/tmp.ts"
