/** The public routes of spec §2 (and issue #12's /support) and the name each one's screenshot gets. */
export const publicPages = [
  { name: 'home', path: '/', heading: 'Private. Fast. Simple.' },
  { name: 'pricing', path: '/pricing', heading: 'Plans and prices' },
  { name: 'faq', path: '/faq', heading: 'Frequently asked questions' },
  { name: 'about', path: '/about', heading: 'A VPN with fewer moving parts' },
  { name: 'contact', path: '/contact', heading: 'Contact us' },
  { name: 'support', path: '/support', heading: 'How to reach support' },
  { name: 'what-we-store', path: '/privacy/what-we-store', heading: 'What we store' },
] as const;

/** Header and footer link to these (spec §2 "Public layout"). */
export const layoutLinkTargets = ['/', '/pricing', '/faq', '/about', '/contact', '/login'] as const;

/** The footer links to these as well (issue #12: how to reach support). */
export const footerOnlyLinkTargets = ['/servers', '/support', '/privacy/what-we-store'] as const;
