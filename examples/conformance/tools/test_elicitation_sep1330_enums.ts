import type { TestElicitationSep1330EnumsHandler } from '../generated/tools/test_elicitation_sep1330_enums.gen.ts';

/** Asks with a form using every enum variant (SEP-1330). */
export const handler: TestElicitationSep1330EnumsHandler = async (_args, ctx) => {
  const answer = await ctx.elicit({
    message: 'Please choose',
    requestedSchema: {
      type: 'object',
      properties: {
        untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
        titledSingle: {
          type: 'string',
          oneOf: [
            { const: 'value1', title: 'First Option' },
            { const: 'value2', title: 'Second Option' },
            { const: 'value3', title: 'Third Option' },
          ],
        },
        legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
        untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
        titledMulti: {
          type: 'array',
          items: {
            anyOf: [
              { const: 'value1', title: 'First Choice' },
              { const: 'value2', title: 'Second Choice' },
              { const: 'value3', title: 'Third Choice' },
            ],
          },
        },
      },
    },
  });
  return { content: [{ type: 'text', text: `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}` }] };
};
