/**
 * Preloaded (`node --import`, through NODE_OPTIONS) by tests that must know whether a process, or
 * any process it starts, loaded a package: whenever a package named in RECORD_IMPORTS (comma-
 * separated) is resolved, a line `<pid> <specifier>` is appended to RECORD_IMPORTS_FILE. Plain
 * JavaScript, so that it loads before anything else.
 */
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const watched = new Set((process.env.RECORD_IMPORTS ?? '').split(',').filter(Boolean));
const file = process.env.RECORD_IMPORTS_FILE;
/** The package a bare specifier names: 'ts-morph', '@scope/name'; undefined for a path or a URL. */
const packageOf = (specifier) =>
  /^[.\/]|^[a-z]+:/.test(specifier)
    ? undefined
    : specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/');

if (file && watched.size)
  registerHooks({
    resolve(specifier, context, next) {
      if (watched.has(packageOf(specifier))) appendFileSync(file, `${process.pid} ${specifier}\n`);
      return next(specifier, context);
    },
  });
