/**
 * Domain failures become the catalog errors their tools declare (app/domain/errors.ts, raised by
 * app/tool-support/domain-errors.ts), with the messages the interface shows; a code a tool does not
 * declare fails type-check, or, if an operation raises what it did not declare, is an internal error.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CannotStartError,
  DailyLimitError,
  EmailTakenError,
  IllegalStateError,
  InvalidCursorError,
  NotFoundError,
  ProfileNotActiveError,
  type DomainCode,
  type Fallible,
} from '../../../app/domain/errors.ts';
import type { CampaignStore } from '../../../app/store/campaigns.ts';
import { catalogErrorFor, withDomainErrors } from '../../../app/tool-support/domain-errors.ts';
import { errorCatalog, type ErrorParams } from '../../../generated/errors.gen.ts';
import type { PauseCampaignErrorCode } from '../../../generated/tools/pause_campaign.gen.ts';
import type { StartCampaignErrorCode } from '../../../generated/tools/start_campaign.gen.ts';
import { CatalogError, type ToolErrors } from '../../../runtime/index.ts';
// The runtime builds tools' errors with its factory; the public surface does not export it.
import { ErrorFactory } from '../../../runtime/errors.ts';

const factory = new ErrorFactory(errorCatalog);
/** A tool's ctx.errors with these codes, as the runtime builds it. */
function toolErrors<C extends keyof ErrorParams>(...codes: C[]): ToolErrors<ErrorParams, C> {
  return Object.fromEntries(codes.map((code) => [code, (params: Record<string, string | number> = {}) => factory.declared(code, params)])) as never;
}
const ids = { tool: 'some_tool', service_profile_id: 'prf_1', campaign_id: 'cmp_1' };
const message = (err: unknown, id = ids) => {
  const raised = catalogErrorFor(err, id);
  assert.ok(raised);
  return factory.declared(raised.code, raised.params as Record<string, string | number>).message;
};

describe('each domain failure names its catalog error and the message says what to do', () => {
  test('not found, per kind of id', () => {
    assert.equal(
      message(new NotFoundError('campaign', 'cmp_1')),
      "Campaign cmp_1 was not found for profile prf_1; call list_campaigns to see this profile's campaigns",
    );
    assert.equal(catalogErrorFor(new NotFoundError('step', 'stp_9'), ids)?.code, 'STEP_NOT_FOUND');
    assert.deepEqual(catalogErrorFor(new NotFoundError('step', 'stp_9'), ids)?.params, { step_id: 'stp_9', campaign_id: 'cmp_1' });
    assert.deepEqual(catalogErrorFor(new NotFoundError('lead', 'led_2'), ids)?.params, { lead_id: 'led_2', service_profile_id: 'prf_1' });
    assert.deepEqual(catalogErrorFor(new NotFoundError('conversation', 'cnv_3'), ids)?.params, { conversation_id: 'cnv_3', service_profile_id: 'prf_1' });
    assert.deepEqual(catalogErrorFor(new NotFoundError('profile', 'prf_4'), ids), { code: 'PROFILE_NOT_FOUND', params: { service_profile_id: 'prf_4' } });
  });

  test('lifecycle: archived, steps locked, leads not accepted, illegal transition', () => {
    assert.equal(catalogErrorFor(new IllegalStateError('edit_steps', 'archived', ['draft', 'paused']), ids)?.code, 'CAMPAIGN_ARCHIVED');
    assert.equal(catalogErrorFor(new IllegalStateError('edit', 'archived', ['draft']), ids)?.code, 'CAMPAIGN_ARCHIVED');
    assert.deepEqual(catalogErrorFor(new IllegalStateError('edit_steps', 'active', ['draft', 'paused']), ids), {
      code: 'STEPS_LOCKED',
      params: { campaign_id: 'cmp_1', current: 'active' },
    });
    assert.equal(catalogErrorFor(new IllegalStateError('add_leads', 'archived', ['draft']), ids)?.code, 'LEADS_NOT_ACCEPTED');
    assert.deepEqual(catalogErrorFor(new IllegalStateError('start', 'completed', ['draft', 'paused']), ids), {
      code: 'ILLEGAL_TRANSITION',
      params: { action: 'start', campaign_id: 'cmp_1', current: 'completed', allowed: 'draft or paused' },
    });
    assert.equal(message(new IllegalStateError('archive', 'archived', ['draft', 'active', 'paused'])).includes('draft, active or paused'), true);
  });

  test('starting without steps or leads, a bad cursor, the daily limit, an inactive profile', () => {
    assert.equal(catalogErrorFor(new CannotStartError('no_steps'), ids)?.code, 'CAMPAIGN_HAS_NO_STEPS');
    assert.equal(catalogErrorFor(new CannotStartError('no_leads'), ids)?.code, 'CAMPAIGN_HAS_NO_LEADS');
    assert.deepEqual(catalogErrorFor(new InvalidCursorError(), ids), { code: 'INVALID_CURSOR', params: { tool: 'some_tool' } });
    assert.equal(
      message(new DailyLimitError(3, '2026-03-02T15:00:00.000Z', 'Asia/Tokyo')),
      'Profile prf_1 has reached its daily limit of 3 messages; the limit resets at 2026-03-02T15:00:00.000Z (midnight in Asia/Tokyo)',
    );
    assert.deepEqual(catalogErrorFor(new ProfileNotActiveError('paused'), ids), {
      code: 'PROFILE_NOT_ACTIVE',
      params: { service_profile_id: 'prf_1', status: 'paused' },
    });
  });

  test('each failure becomes the catalog code it carries, with every parameter its message needs', () => {
    const failures = [
      ...(['campaign', 'step', 'lead', 'conversation', 'profile'] as const).map((kind) => new NotFoundError(kind, 'x_1')),
      ...(['start', 'pause', 'archive', 'complete', 'edit_steps', 'edit', 'add_leads'] as const).map((a) => new IllegalStateError(a, 'archived', ['draft'])),
      new IllegalStateError('edit_steps', 'active', ['draft', 'paused']),
      new CannotStartError('no_steps'),
      new CannotStartError('no_leads'),
      new InvalidCursorError(),
      new DailyLimitError(50, '2026-01-02T00:00:00Z', 'UTC'),
      new ProfileNotActiveError('paused'),
    ];
    for (const failure of failures) {
      const raised = catalogErrorFor(failure, ids);
      assert.equal(raised?.code, failure.code, failure.message);
      assert.deepEqual(Object.keys(raised!.params).sort(), [...errorCatalog[raised!.code]!.params].sort(), raised!.code);
    }
  });

  test('errors that are not domain failures, or that no tool meets, have no catalog error', () => {
    assert.equal(catalogErrorFor(new Error('boom'), ids), undefined);
    assert.equal(catalogErrorFor(new EmailTakenError('taken'), ids), undefined);
  });
});

describe('withDomainErrors', () => {
  test("raises the tool's catalog error for a failure it declares", async () => {
    const work = (): Fallible<never, 'CAMPAIGN_HAS_NO_LEADS'> => Promise.reject(new CannotStartError('no_leads'));
    await assert.rejects(withDomainErrors(toolErrors('CAMPAIGN_HAS_NO_LEADS'), ids, work), (err) => {
      assert.ok(err instanceof CatalogError);
      assert.equal(err.code, 'CAMPAIGN_HAS_NO_LEADS');
      assert.equal(err.message, 'Cannot start campaign cmp_1: it has no leads; add some with add_leads first');
      return true;
    });
  });

  test('passes the result and any other error through', async () => {
    assert.equal(await withDomainErrors(toolErrors(), ids, async () => 42), 42);
    const boom = new Error('boom');
    await assert.rejects(
      withDomainErrors(toolErrors(), ids, () => Promise.reject(boom)),
      (err) => err === boom,
    );
  });

  test('a failure the operation did not declare, and the tool does not either, is a bug named as such', async () => {
    await assert.rejects(
      withDomainErrors(toolErrors('PROFILE_NOT_FOUND'), ids, () => Promise.reject(new InvalidCursorError())),
      (err) => {
        assert.ok(!(err instanceof CatalogError));
        assert.match((err as Error).message, /^Tool some_tool raised INVALID_CURSOR, which it does not declare in tools\.yaml$/);
        return true;
      },
    );
  });

  test('an operation whose failures the tool does not declare fails type-check (checked by tsc, run here never)', () => {
    const neverCalled = (campaigns: CampaignStore) => {
      const work = (): Fallible<number, 'INVALID_CURSOR'> => Promise.resolve(1);
      // @ts-expect-error -- INVALID_CURSOR is not among the tool's errors
      void withDomainErrors(toolErrors('PROFILE_NOT_FOUND'), ids, work);
      void withDomainErrors(toolErrors('PROFILE_NOT_FOUND', 'INVALID_CURSOR'), ids, work);
      // pause_campaign may meet only what a pause can raise; starting can also find no steps or leads.
      void withDomainErrors(toolErrors<PauseCampaignErrorCode>(), ids, () => campaigns.transition('a', 'p', 'c', 'pause'));
      // @ts-expect-error -- pause_campaign does not declare CAMPAIGN_HAS_NO_STEPS / CAMPAIGN_HAS_NO_LEADS
      void withDomainErrors(toolErrors<PauseCampaignErrorCode>(), ids, () => campaigns.transition('a', 'p', 'c', 'start'));
      void withDomainErrors(toolErrors<StartCampaignErrorCode>(), ids, () => campaigns.transition('a', 'p', 'c', 'start'));
    };
    assert.equal(typeof neverCalled, 'function');
    const codes: DomainCode[] = ['CAMPAIGN_NOT_FOUND'];
    assert.ok(codes.every((c) => c in errorCatalog));
  });
});
