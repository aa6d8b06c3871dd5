import type { TestErrorHandlingHandler } from '../generated/tools/test_error_handling.gen.ts';

/** Always fails with an isError result (TEST_ERROR), for testing error reporting. */
export const handler: TestErrorHandlingHandler = async (_args, ctx) => {
  throw ctx.errors.TEST_ERROR();
};
