import { describe, expect, it } from 'vitest';
import { captureLogs } from '@qw/testkit';
import { scrubString } from '../src/logger/index.ts';

describe('log redaction', () => {
  it('replaces sensitive keys at any depth', () => {
    const { logger, text } = captureLogs();
    logger.info(
      {
        user: { email: 'ada@example.com', password: 'hunter2hunter2', profile: { full_name: 'Ada' } },
        headers: { authorization: 'Bearer abc.def.ghi', cookie: 'qw_refresh=xyz', 'x-forwarded-for': '198.51.100.7' },
        device: { privateKey: 'yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=', name: 'laptop' },
        list: [{ token: 'secret-token-value' }],
      },
      'sign-in attempt',
    );
    const out = text();
    for (const secret of [
      'ada@example.com',
      'hunter2hunter2',
      'abc.def.ghi',
      'xyz',
      '198.51.100.7',
      'yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=',
      'secret-token-value',
    ]) {
      expect(out).not.toContain(secret);
    }
    expect(out).toContain('Ada');
    expect(out).toContain('laptop');
  });

  it('masks addresses, e-mails, tokens and keys inside free text and error messages', () => {
    const { logger, text } = captureLogs();
    logger.warn('login from 203.0.113.9 for bob@example.org with eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig');
    logger.error(
      { err: new Error('peer 2001:db8::1 key xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg= refused') },
      'failed',
    );
    const out = text();
    expect(out).not.toMatch(
      /203\.0\.113\.9|bob@example\.org|eyJhbGci|2001:db8::1|xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=/,
    );
    expect(out).toContain('[ip]');
    expect(out).toContain('[email]');
    expect(out).toContain('[jwt]');
    expect(out).toContain('[key]');
  });

  it('leaves ordinary text, times and identifiers alone', () => {
    expect(scrubString('relay pass at 02:30:45 took 12 ms')).toBe('relay pass at 02:30:45 took 12 ms');
    expect(scrubString('event 0192f1c2-7d1a-7b3e-9c1d-2a3b4c5d6e7f')).toBe(
      'event 0192f1c2-7d1a-7b3e-9c1d-2a3b4c5d6e7f',
    );
    expect(scrubString('version 1.2.3')).toBe('version 1.2.3');
  });
});
