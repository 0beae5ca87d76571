import { describe, expect, it } from 'vitest';
import { AppError, outranks, suspensionLevels, type SuspensionLevel } from '@qw/contracts';
import {
  suspensionLevelOf,
  suspensionReasonOf,
  suspensionStep,
  type SuspensionStep,
} from '../src/devices/suspension-rules.ts';

const held: Array<SuspensionLevel | null> = [null, ...suspensionLevels];
const rank = (level: SuspensionLevel) => ({ person: 1, organization: 2, operator: 3 })[level];

/** Every state × every level × both requests, against the rule written out by hand. */
describe('suspension levels: operator > organization owner/admin > the device’s person', () => {
  it('ranks the levels: each outranks itself and those below it, nothing outranks no suspension', () => {
    for (const actor of suspensionLevels) {
      expect(outranks(actor, null)).toBe(true);
      for (const level of suspensionLevels) expect(outranks(actor, level)).toBe(rank(actor) >= rank(level));
    }
  });

  it('maps what the caller is to the device to a level, and each level to the reason it records', () => {
    expect([suspensionLevelOf('own'), suspensionLevelOf('manage'), suspensionLevelOf('operate')]).toEqual([
      'person',
      'organization',
      'operator',
    ]);
    expect(suspensionLevels.map(suspensionReasonOf)).toEqual(['owner', 'manager', 'admin']);
  });

  const expected = (
    state: { is_active: boolean; suspended_by: SuspensionLevel | null },
    actor: SuspensionLevel,
    active: boolean,
  ): SuspensionStep | 'refused' => {
    if (state.is_active) return active ? 'none' : 'suspend';
    if (state.suspended_by && rank(actor) < rank(state.suspended_by)) return 'refused';
    if (active) return 'activate';
    return state.suspended_by === actor ? 'none' : 'take-over';
  };
  const cases = [
    { is_active: true, suspended_by: null },
    ...held.map((suspended_by) => ({ is_active: false, suspended_by })),
  ].flatMap((state) => suspensionLevels.flatMap((actor) => [true, false].map((active) => ({ state, actor, active }))));

  it.each(cases)('$state, by $actor, active=$active', ({ state, actor, active }) => {
    const want = expected(state, actor, active);
    if (want === 'refused') {
      let refusal: unknown;
      try {
        suspensionStep(state, actor, active);
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(AppError);
      expect((refusal as AppError).code).toBe('suspended_by_higher_level');
      expect((refusal as AppError).status).toBe(403);
    } else expect(suspensionStep(state, actor, active)).toBe(want);
  });

  it('says who holds the device, in the customer’s words', () => {
    const refusal = (level: SuspensionLevel) => {
      try {
        suspensionStep({ is_active: false, suspended_by: level }, 'person', true);
      } catch (error) {
        return (error as AppError).message;
      }
      return null;
    };
    expect(refusal('operator')).toBe(
      'Quietwire support suspended this device. Contact support to have it activated again.',
    );
    expect(refusal('organization')).toBe(
      "Your organization's admin suspended this device. Ask an owner or admin of the organization to activate it.",
    );
    expect(refusal('person')).toBeNull();
    expect(cases).toHaveLength(5 * 3 * 2);
  });
});
