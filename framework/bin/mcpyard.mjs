#!/usr/bin/env node
// The `mcpyard` command: init, gen, check, start (framework/cli/main.ts, bundled into dist/cli.js).
import '../dist/cli.js';
