import { brandedMailHtml, escapeHtml, type MailMessage } from '@qw/platform/mailer';

/** Plain, branded HTML with the same words as the text part. */
export function layout(title: string, paragraphs: string[], action?: { label: string; url: string }): string {
  const body = paragraphs.map((p) => `<p style="margin:0 0 16px">${escapeHtml(p)}</p>`).join('');
  const button = action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(action.url)}" style="background:#0f766e;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;font-weight:600">${escapeHtml(action.label)}</a></p>
       <p style="margin:0 0 16px;color:#475569;font-size:13px">If the button does not work, open this address: ${escapeHtml(action.url)}</p>`
    : '';
  return brandedMailHtml(`<h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(title)}</h1>${body}${button}`);
}

export function verificationMail(to: string, link: string): MailMessage {
  const lines = [
    'Welcome to Quietwire. Confirm your email address so we can send your device configurations to it.',
    'The link works once and expires in 24 hours.',
  ];
  return {
    to,
    subject: 'Confirm your email for Quietwire',
    text: `${lines.join('\n\n')}\n\nConfirm your email: ${link}\n\nIf you did not create a Quietwire account, ignore this message.\n`,
    html: layout('Confirm your email', [...lines, 'If you did not create a Quietwire account, ignore this message.'], {
      label: 'Confirm email',
      url: link,
    }),
  };
}

export function passwordResetMail(to: string, link: string): MailMessage {
  const lines = [
    'Someone asked to reset the password of your Quietwire account.',
    'The link works once and expires in 1 hour. Setting a new password signs out every other session.',
  ];
  return {
    to,
    subject: 'Reset your Quietwire password',
    text: `${lines.join('\n\n')}\n\nChoose a new password: ${link}\n\nIf it was not you, ignore this message; your password stays as it is.\n`,
    html: layout(
      'Reset your password',
      [...lines, 'If it was not you, ignore this message; your password stays as it is.'],
      { label: 'Choose a new password', url: link },
    ),
  };
}

export function contactForwardMail(to: string, from: string, message: string, id: string): MailMessage {
  return {
    to,
    replyTo: from,
    subject: `Contact form message ${id.slice(0, 8)}`,
    text: `From: ${from}\nReference: ${id}\n\n${message}\n`,
    html: layout('Contact form message', [`From: ${from}`, `Reference: ${id}`, message]),
  };
}

export function invitationMail(
  to: string,
  invitation: { organization: string; inviter: string; role: 'admin' | 'member'; link: string; days: number },
): MailMessage {
  const as = invitation.role === 'admin' ? 'an admin' : 'a member';
  const lines = [
    `${invitation.inviter} invited you to join ${invitation.organization} on Quietwire as ${as}.`,
    `The link works once and expires in ${invitation.days} days. If you have no Quietwire account yet, you can create one with this address on the way.`,
  ];
  const ignore = 'If you did not expect this invitation, ignore this message; nothing happens without you.';
  return {
    to,
    subject: `Join ${invitation.organization} on Quietwire`,
    text: `${lines.join('\n\n')}\n\nAccept the invitation: ${invitation.link}\n\n${ignore}\n`,
    html: layout(`Join ${invitation.organization} on Quietwire`, [...lines, ignore], {
      label: 'Accept the invitation',
      url: invitation.link,
    }),
  };
}

export function accountDeletedMail(to: string): MailMessage {
  const lines = [
    'Your Quietwire account has been deleted, as you asked.',
    'Your devices were removed from our servers and their keys stop working now. Your plan was cancelled and will not renew.',
    'We erased your name, your email address and your devices. Receipts of past payments are kept without them, as tax law requires.',
    'This is the last message we send to this address.',
  ];
  return {
    to,
    subject: 'Your Quietwire account has been deleted',
    text: `${lines.join('\n\n')}\n`,
    html: layout('Your account has been deleted', lines),
  };
}
