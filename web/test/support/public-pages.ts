/** The public routes of spec §2 and the name each one's screenshot gets. */
export const publicPages = [
  { name: 'home', path: '/', heading: 'Private. Fast. Simple.' },
  { name: 'pricing', path: '/pricing', heading: 'Plans and prices' },
  { name: 'faq', path: '/faq', heading: 'Frequently asked questions' },
  { name: 'about', path: '/about', heading: 'A VPN with fewer moving parts' },
  { name: 'contact', path: '/contact', heading: 'Contact us' },
] as const;

/** Header and footer link to these (spec §2 "Public layout"). */
export const layoutLinkTargets = ['/', '/pricing', '/faq', '/about', '/contact', '/login'] as const;
