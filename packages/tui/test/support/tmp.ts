export { tempDir, writeFileAt } from "../../../core/test/support/tmp.ts"
