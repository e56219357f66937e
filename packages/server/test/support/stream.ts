/** Reading byte streams as text: core's test helper, shared so both packages wait on output the same way. */
export { readRest, readUntil } from "../../../core/test/support/stream.ts"
