import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogs, startSmtpCapture, type SmtpCapture } from '@qw/testkit';
import { createMailer } from '../src/mailer/index.ts';

let smtp: SmtpCapture;
let dir: string;

beforeAll(async () => {
  smtp = await startSmtpCapture();
  dir = await mkdtemp(path.join(tmpdir(), 'qw-mail-'));
});
afterAll(async () => {
  await smtp.close();
  await rm(dir, { recursive: true, force: true });
});

describe('mailer', () => {
  it('sends through SMTP with attachments, and logs no recipient', async () => {
    const logs = captureLogs('mail');
    const mailer = createMailer({
      mailUrl: smtp.url,
      from: 'Quietwire <no-reply@quietwire.test>',
      outboxDir: dir,
      logger: logs.logger,
    });
    await mailer.send({
      to: 'ada@example.com',
      subject: 'Your device',
      text: 'Hello Ada',
      html: '<p>Hello Ada</p>',
      attachments: [{ filename: 'laptop.conf', content: '[Interface]\n' }],
    });
    const mail = await smtp.waitFor((m) => m.subject === 'Your device');
    expect(mail.text?.trim()).toBe('Hello Ada');
    expect(mail.attachments[0]?.filename).toBe('laptop.conf');
    expect(mail.attachments[0]?.content.toString()).toBe('[Interface]\n');
    expect((mail.to as { text: string }).text).toContain('ada@example.com');
    expect(logs.text()).not.toContain('ada@example.com');
    mailer.close();
  });

  it('writes an .eml file when no SMTP server is configured', async () => {
    const logs = captureLogs('mail');
    const mailer = createMailer({ from: 'Quietwire <no-reply@quietwire.test>', outboxDir: dir, logger: logs.logger });
    const sent = await mailer.send({ to: 'bob@example.org', subject: 'Verify your email', text: 'Open the link' });
    expect(sent.file).toBeDefined();
    expect((await readdir(dir)).length).toBe(1);
    const eml = await readFile(sent.file!, 'utf8');
    expect(eml).toContain('Subject: Verify your email');
    expect(eml).toContain('bob@example.org');
    expect(logs.text()).not.toContain('bob@example.org');
  });
});
