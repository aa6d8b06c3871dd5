/** `npm run gen`: the generator's bundle (see gen-bundle.mjs), rebuilt first when its sources changed. */
import { run } from './gen-bundle.mjs';

await run('gen');
