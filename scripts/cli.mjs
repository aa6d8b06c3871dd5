/** `npm run cli`: the admin CLI's bundle (see cli-bundle.mjs), rebuilt first when its sources changed. */
import { run } from './cli-bundle.mjs';

await run();
