/** Types of cli-bundle.mjs (plain JavaScript so that it runs before anything is built). */
/** True when the CLI's bundle (dist/cli.js) exists and no source it was built from has changed since. */
export function isFresh(): boolean;
/** Bundles the CLI into dist/cli.js; resolves with how long it took, in ms. */
export function build(): Promise<number>;
/** Runs the CLI with the process's arguments, building it first when it is stale. */
export function run(): Promise<void>;
