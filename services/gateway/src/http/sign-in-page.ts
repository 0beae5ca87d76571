import type { FastifyReply, FastifyRequest } from 'fastify';
import { type AppError, httpStatusFor, safeNextPath } from '@qw/contracts';
import { escapeHtml } from '@qw/platform/mailer';

/**
 * Whether a browser opened this address as a page (a link in a new tab, copied or middle-clicked),
 * rather than the web app asking for JSON: such a request carries no access token, so it should see
 * a page that says what happened and how to sign in, not an error body.
 */
export function wantsPage(request: FastifyRequest): boolean {
  return request.headers.accept?.includes('text/html') ?? false;
}

/**
 * A small page for a refusal of a link opened in a new tab: the refusal's words and a link to
 * sign in (`/login?next=…`), with the status of the refusal. No script and no inline style (the
 * site's Content-Security-Policy allows neither).
 */
export function sendSignInPage(
  reply: FastifyReply,
  refusal: AppError,
  options: { next: string; title: string },
): FastifyReply {
  const next = safeNextPath(options.next) ?? '/app';
  const login = `/login?next=${encodeURIComponent(next)}`;
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)} · Quietwire</title></head>
<body>
<main>
<p><strong>Quietwire</strong></p>
<h1>${escapeHtml(options.title)}</h1>
<p data-code="${escapeHtml(refusal.code)}">${escapeHtml(refusal.message)}</p>
<p><a href="${escapeHtml(login)}">Sign in</a> to continue.</p>
</main>
</body>
</html>
`;
  return reply
    .status(httpStatusFor(refusal.code))
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(html);
}
