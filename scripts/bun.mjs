#!/usr/bin/env node
// Runs Bun on a machine that only has Node.js and npm (`npm start`, `npm test`): installs the pinned Bun
// into .tools/ on first use and the workspace dependencies from bun.lock, then hands the arguments to Bun
// in the repository root, forwarding SIGINT, SIGTERM and SIGHUP to it (see pinned-bun.mjs).
import { launch, root } from "./pinned-bun.mjs"

launch(process.argv.slice(2), { cwd: root })
