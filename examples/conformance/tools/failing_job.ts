import type { FailingJobHandler } from '../generated/tools/failing_job.gen.ts';

/** Runs only as a task and ends with a tool error after about a second. */
export const handler: FailingJobHandler = async (_args, ctx) => {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  throw ctx.errors.TEST_ERROR();
};
