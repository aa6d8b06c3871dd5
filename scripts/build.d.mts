/** Types of build.mjs (plain JavaScript so that it runs before anything is built). */
/** True when dist/main.js exists and no source it was built from has changed since. */
export function isFresh(): boolean;
/**
 * Bundles the server into dist/; resolves with how long it took, in ms. `accept(sources)` sees the
 * bundle's sources first: when it resolves false, dist/ is left as it was and build() resolves undefined.
 */
export function build(): Promise<number>;
export function build(options: { accept: (sources: string[]) => Promise<boolean> }): Promise<number | undefined>;
/** The esbuild options shared by the server's bundle, the CLI's and the benchmark's. */
export const bundleOptions: import('esbuild').BuildOptions;
