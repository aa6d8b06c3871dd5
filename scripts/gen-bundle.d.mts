/** Types of gen-bundle.mjs (plain JavaScript so that it runs before anything is built). */
/** True when the generator's bundle exists and no source it was built from has changed since. */
export function isFresh(): boolean;
/** Bundles the generator into dist/; resolves with how long it took, in ms. */
export function build(): Promise<number>;
/** Runs an entry of the bundle ('gen' or 'gen-dev'), building it first when it is stale. */
export function run(entry: 'gen' | 'gen-dev'): Promise<void>;
/** The standalone (ESM) code of tools.yaml's own validator, as the bundle holds it; it calls require() for ajv's runtime helpers. */
export function toolsYamlValidatorCode(): string;
