/**
 * Issue #26: the domains no real person's mail can be at (RFC 2606 and RFC 6761: the `.test`,
 * `.example`, `.invalid` and `.localhost` top-level domains, and `example.com`, `example.net`,
 * `example.org` with their subdomains). With MARK_TEST_ACCOUNTS on (`make dev`), an account made
 * with such an address is a test account from the start.
 */
const reservedTopLevel = ['test', 'example', 'invalid', 'localhost'];
const reservedDomains = ['example.com', 'example.net', 'example.org'];

export function isReservedTestAddress(email: string): boolean {
  const at = email.lastIndexOf('@');
  if (at < 0) return false;
  const domain = email
    .slice(at + 1)
    .trim()
    .toLowerCase()
    .replace(/\.$/, '');
  if (domain === '') return false;
  const labels = domain.split('.');
  if (reservedTopLevel.includes(labels[labels.length - 1]!)) return true;
  return reservedDomains.some((reserved) => domain === reserved || domain.endsWith(`.${reserved}`));
}
