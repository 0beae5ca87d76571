import { promises as fs } from 'node:fs';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from 'pino';

export type MailAttachment = { filename: string; content: Buffer | string; contentType?: string; cid?: string };
export type MailMessage = {
  to: string;
  subject: string;
  text: string;
  html?: string;
  attachments?: MailAttachment[];
  replyTo?: string;
};

export type MailerOptions = {
  /** smtp://user:pass@host:port or smtps://…; without it, mail is written to `outboxDir` as .eml files. */
  mailUrl?: string | undefined;
  from: string;
  outboxDir: string;
  logger: Logger;
};

export type Mailer = { send(message: MailMessage): Promise<{ messageId: string; file?: string }>; close(): void };

/**
 * Real SMTP when MAIL_URL is set. Without it (development), each message becomes an .eml file
 * under var/mail that any mail client opens; the log names the file, never the recipient.
 */
export function createMailer(options: MailerOptions): Mailer {
  const smtp: Transporter | undefined = options.mailUrl ? nodemailer.createTransport(options.mailUrl) : undefined;
  const files = smtp ? undefined : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(message) {
      const mail = { from: options.from, ...message };
      if (smtp) {
        const info = await smtp.sendMail(mail);
        options.logger.info({ subject: message.subject }, 'mail sent');
        return { messageId: String(info.messageId) };
      }
      const info = (await files!.sendMail(mail)) as unknown as { messageId: string; message: Buffer };
      await fs.mkdir(options.outboxDir, { recursive: true });
      const file = path.join(options.outboxDir, `${Date.now()}-${info.messageId.replace(/[^\w.-]/g, '')}.eml`);
      await fs.writeFile(file, info.message);
      options.logger.info({ subject: message.subject, file }, 'mail written to file (no MAIL_URL set)');
      return { messageId: info.messageId, file };
    },
    close() {
      smtp?.close();
    },
  };
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The one branded frame of every Quietwire mail (DESIGN.md): the name on top, the body, a quiet footer. */
export function brandedMailHtml(bodyHtml: string): string {
  return `<!doctype html><html><body style="margin:0;background:#f8fafc;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#0f172a">
<div style="max-width:560px;margin:0 auto;padding:32px 24px">
<p style="font-weight:700;font-size:18px;margin:0 0 24px">Quietwire</p>
${bodyHtml}
<p style="margin:32px 0 0;color:#64748b;font-size:12px">Quietwire · WireGuard VPN · support by email, 24/7</p>
</div></body></html>`;
}
export {
  MailQueue,
  mailMaxAttempts,
  mailNotYet,
  mailRetryDelaySeconds,
  mailWaitDays,
  mailClaimSeconds,
  mailWaitSeconds,
  queueMail,
  type MailRenderer,
} from './mail-queue.ts';
