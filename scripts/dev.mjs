/** `npm run dev`: the dev loop's bundle (see gen-bundle.mjs), rebuilt first when its sources changed. */
import { run } from './gen-bundle.mjs';

await run('gen-dev');
