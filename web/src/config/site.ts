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
