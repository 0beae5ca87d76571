import { describe, expect, it } from 'vitest';
import { suspensionLevels, type SuspensionLevel } from '@qw/contracts';
import { activationRefusal, suspendedByText, suspensionNote } from '../src/features/devices/utils/suspension';

/** Issue #20: who holds a device off, in the customer's words, and who may switch it back on. */
const held: Array<SuspensionLevel | null> = [null, ...suspensionLevels];
const rank = (level: SuspensionLevel) => suspensionLevels.indexOf(level);

describe('a suspended device’s row', () => {
  it('says who suspended it when that was the organization or Quietwire support, else nothing new', () => {
    expect(suspendedByText).toEqual({
      organization: "Suspended by your organization's admin",
      operator: 'Suspended by Quietwire support: contact support',
    });
    expect(suspensionNote({ is_active: false, suspended_by: 'operator' })).toBe(
      'Suspended by Quietwire support: contact support',
    );
    expect(suspensionNote({ is_active: false, suspended_by: 'organization' })).toBe(
      "Suspended by your organization's admin",
    );
    // Its person's own suspension, a plan's end, and an answer without the field: the row as before.
    expect(suspensionNote({ is_active: false, suspended_by: 'person' })).toBeNull();
    expect(suspensionNote({ is_active: false, suspended_by: null })).toBeNull();
    expect(suspensionNote({ is_active: false })).toBeNull();
    expect(suspensionNote({ is_active: true, suspended_by: null })).toBeNull();
  });

  it.each(held.flatMap((by) => suspensionLevels.map((viewer) => ({ by, viewer }))))(
    'suspended by $by, seen by $viewer: Activate disabled only below the level, with the note as reason',
    ({ by, viewer }) => {
      const device = { is_active: false, suspended_by: by };
      const blocked = by !== null && rank(viewer) < rank(by);
      expect(activationRefusal(device, viewer)).toBe(blocked ? suspensionNote(device) : null);
      expect(activationRefusal({ is_active: true, suspended_by: null }, viewer)).toBeNull();
    },
  );
});
