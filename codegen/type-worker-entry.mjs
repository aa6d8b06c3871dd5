// Worker threads do not inherit the parent's TypeScript loader: register tsx, then run the worker.
import { register } from 'tsx/esm/api';

register();
await import('./type-worker.ts');
