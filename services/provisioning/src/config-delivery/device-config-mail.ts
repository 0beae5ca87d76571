import { platformLabels, setupSteps, type Platform } from '@qw/contracts';
import { brandedMailHtml, escapeHtml, type MailMessage } from '@qw/platform/mailer';

/** The config email (DESIGN.md): greeting, device name, .conf attached, QR inline, three steps, a warning. */
export function deviceConfigMail(input: {
  to: string;
  deviceName: string;
  platform: Platform;
  fileName: string;
  config: string;
  qrPng: Buffer;
  rotated: boolean;
  /** A scheduled rotation: the previous key keeps working this many hours. */
  graceHours?: number | undefined;
  /** The device moved to another server: where it connects now ("Frankfurt, Europe"). */
  movedTo?: string | undefined;
}): MailMessage {
  const steps = setupSteps[input.platform];
  const intro = input.movedTo
    ? movedIntro(input.deviceName, input.movedTo)
    : !input.rotated
      ? `Your device ${input.deviceName} (${platformLabels[input.platform]}) is ready.`
      : input.graceHours
        ? `Here is the new configuration for ${input.deviceName}, made by its scheduled key rotation. The previous key keeps working for ${input.graceHours} hours; after that only this one connects.`
        : `Here is the new configuration for ${input.deviceName}. The previous key no longer connects.`;
  const warning = 'The attached file contains a private key. Do not forward this email or share the file.';
  const text = [
    'Hello,',
    '',
    intro,
    '',
    `Set it up in three steps (${platformLabels[input.platform]}):`,
    ...steps.map((step, i) => `${i + 1}. ${step}`),
    '',
    `The configuration is attached as ${input.fileName}; the QR code is in the HTML version of this email.`,
    '',
    warning,
    '',
    'Quietwire',
  ].join('\n');
  const html = brandedMailHtml(`<p>Hello,</p><p>${escapeHtml(intro)}</p>
<p><img src="cid:config-qr" alt="QR code of the WireGuard configuration" width="280" height="280" style="border:1px solid #e2e8f0;border-radius:8px"></p>
<p style="font-weight:600">Set it up in three steps (${escapeHtml(platformLabels[input.platform])}):</p>
<ol>${steps.map((step) => `<li style="margin:0 0 8px">${escapeHtml(step)}</li>`).join('')}</ol>
<p>The configuration is attached as <code>${escapeHtml(input.fileName)}</code>.</p>
<p style="background:#fffbeb;border:1px solid #f59e0b;border-radius:6px;padding:12px">${escapeHtml(warning)}</p>`);
  return {
    to: input.to,
    subject: input.movedTo
      ? movedSubject(input.deviceName)
      : input.rotated
        ? `New key for ${input.deviceName}`
        : `Your Quietwire configuration for ${input.deviceName}`,
    text,
    html,
    attachments: [
      { filename: input.fileName, content: input.config, contentType: 'text/plain' },
      { filename: 'quietwire-qr.png', content: input.qrPng, contentType: 'image/png', cid: 'config-qr' },
    ],
  };
}

const movedIntro = (deviceName: string, place: string) =>
  `${deviceName} now connects through ${place}: download its configuration again. Its previous configuration keeps working for a while, until the new one is in use.`;
const movedSubject = (deviceName: string) => `New server for ${deviceName}: download its configuration again`;

/**
 * A moved device whose private key only its browser has: nothing to attach, so the mail sends its
 * person to the devices page, where the browser writes the new file.
 */
export function deviceMovedMail(input: { to: string; deviceName: string; movedTo: string }): MailMessage {
  const intro = movedIntro(input.deviceName, input.movedTo);
  const how = 'Open Devices in Quietwire in the browser you set it up with and download its configuration there.';
  const text = ['Hello,', '', intro, '', how, '', 'Quietwire'].join('\n');
  const html = brandedMailHtml(`<p>Hello,</p><p>${escapeHtml(intro)}</p><p>${escapeHtml(how)}</p>`);
  return { to: input.to, subject: movedSubject(input.deviceName), text, html };
}
