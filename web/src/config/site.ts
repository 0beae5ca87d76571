export const siteName = 'Quietwire';

export type NavLinkItem = { to: string; label: string };

/** Spec §2 "Public layout": header and footer link to these six routes. */
export const publicNavLinks: readonly NavLinkItem[] = [
  { to: '/', label: 'Home' },
  { to: '/pricing', label: 'Pricing' },
  { to: '/faq', label: 'FAQ' },
  { to: '/about', label: 'About' },
  { to: '/contact', label: 'Contact' },
  { to: '/login', label: 'Sign in' },
];

/** Linked from the footer only: how to reach support (issue #12), what we store (issue #15), the servers (issue #23). */
export const footerExtraLinks: readonly NavLinkItem[] = [
  { to: '/servers', label: 'Servers' },
  { to: '/support', label: 'Support' },
  { to: '/privacy/what-we-store', label: 'What we store' },
];

/**
 * Spec §1/§9: support is 24/7 by email. The address is the one identity mails the contact form to
 * (its SUPPORT_EMAIL); `VITE_SUPPORT_EMAIL` sets it for a deployment with another address.
 */
export const supportEmail: string = import.meta.env.VITE_SUPPORT_EMAIL || 'support@quietwire.test';

/** What the contact form promises too ('usually within a day'). */
export const supportReplyTime = 'usually within a day';
