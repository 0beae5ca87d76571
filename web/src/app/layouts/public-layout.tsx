import { useEffect, useRef, useState } from 'react';
import {
  type GetScrollRestorationKeyFunction,
  Link,
  NavLink,
  Outlet,
  ScrollRestoration,
  useLocation,
  useNavigation,
} from 'react-router-dom';
import { footerExtraLinks, publicNavLinks, siteName } from '../../config/site';
import { usePageVisits } from '../../features/analytics/page-visits';
import { BrandLink } from './brand';
import { useFocusMainOnNavigate } from './use-focus-main';
import { SkipLink } from './skip-link';
import './public-layout.css';

/**
 * Where a scroll position is remembered: by history entry, as React Router does, except the first
 * entry of a page load, which it calls "default" in every load. Keyed so, a page opened by its
 * address in a tab that showed another page got that page's position back instead of its own
 * anchor (/pricing#business landing at the top); by its address, a reload still comes back where
 * it was.
 */
const scrollKey: GetScrollRestorationKeyFunction = (location) =>
  location.key === 'default' ? `${location.pathname}${location.search}${location.hash}` : location.key;

/** Spec §2 "Public layout": header and footer link to /, /pricing, /faq, /about, /contact and /login. */
export function PublicLayout() {
  const [menuOpen, setMenuOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  const mainRef = useFocusMainOnNavigate();
  const location = useLocation();
  const navigation = useNavigation();
  usePageVisits();

  useEffect(() => setMenuOpen(false), [location.pathname]);

  useEffect(() => {
    if (!location.hash) return;
    // Anchors such as /pricing#business: the section exists only once the lazy page has rendered.
    document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
  }, [location.pathname, location.hash, location.key]);

  useEffect(() => {
    if (!menuOpen) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        setMenuOpen(false);
        menuButton.current?.focus();
      }
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [menuOpen]);

  return (
    <div className="site">
      <SkipLink mainRef={mainRef} />
      {navigation.state === 'loading' && <div className="qw-progress" role="progressbar" aria-label="Loading page" />}
      <header className="site-header">
        <div className="qw-container site-header__inner">
          <BrandLink />
          <button
            ref={menuButton}
            type="button"
            className="site-menu-button"
            aria-expanded={menuOpen}
            aria-controls="site-nav"
            onClick={() => setMenuOpen((open) => !open)}
          >
            <span className="site-menu-button__icon" aria-hidden="true" />
            Menu
          </button>
          <nav id="site-nav" className="site-nav" aria-label="Main" data-open={menuOpen || undefined}>
            <ul className="site-nav__list">
              {publicNavLinks.map((link) => (
                <li key={link.to}>
                  <NavLink
                    to={link.to}
                    end
                    className={link.to === '/login' ? 'site-nav__link site-nav__link--signin' : 'site-nav__link'}
                  >
                    {link.label}
                  </NavLink>
                </li>
              ))}
            </ul>
          </nav>
        </div>
      </header>
      <main id="main" ref={mainRef} tabIndex={-1} className="site-main">
        <Outlet />
      </main>
      <footer className="site-footer">
        <div className="qw-container site-footer__inner">
          <div className="site-footer__brand">
            <BrandLink />
            <p className="qw-muted qw-small">
              A WireGuard VPN for people and teams. Servers in North America, Europe and Asia.
            </p>
          </div>
          <nav aria-label="Footer">
            <ul className="site-footer__links">
              {[...publicNavLinks, ...footerExtraLinks].map((link) => (
                <li key={link.to}>
                  <Link to={link.to}>{link.label}</Link>
                </li>
              ))}
            </ul>
          </nav>
          {/* The year is the build's in a prerendered page; across New Year the browser's may differ. */}
          <p className="qw-muted qw-small site-footer__legal" suppressHydrationWarning>
            © {new Date().getFullYear()} {siteName}. WireGuard is a registered trademark of Jason A. Donenfeld.
          </p>
        </div>
      </footer>
      <ScrollRestoration getKey={scrollKey} />
    </div>
  );
}
