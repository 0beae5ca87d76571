import { describe, expect, it } from 'vitest';
import { personAuditLines } from '../src/features/admin/utils/person-audit';

describe("a person's audit on their console page", () => {
  it("merges the organizations' entries and the operators' actions as sentences, newest first", () => {
    const lines = personAuditLines(
      [
        {
          id: '00000000-0000-7000-8000-000000000001',
          at: '2026-11-20T10:00:00.000Z',
          kind: 'device.added',
          actor: { user_id: null, name: 'Owen' },
          target: { kind: 'device', id: 'd', name: 'Owen phone' },
          details: { platform: 'ios' },
          organization: { name: 'Acme' },
        },
      ],
      [
        {
          id: '00000000-0000-7000-8000-000000000002',
          at: '2026-11-21T10:00:00.000Z',
          actor_id: 'a',
          actor_email: 'ops@quietwire.test',
          kind: 'admin_email.added',
          target: 'owen@example.com',
          details: {},
        },
      ],
      'en-GB',
    );
    expect(lines.map((line) => [line.where, line.sentence])).toEqual([
      ['Operators', 'ops@quietwire.test made owen@example.com an admin.'],
      ['Acme', 'Owen added Owen phone (iOS)'],
    ]);
  });
});
