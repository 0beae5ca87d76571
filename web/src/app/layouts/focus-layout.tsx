import { Link, Outlet } from 'react-router-dom';
import { siteName } from '../../config/site';
import { BrandLink } from './brand';
import { useFocusMainOnNavigate } from './use-focus-main';
import { SkipLink } from './skip-link';
import './focus-layout.css';

/**
 * Full-screen pages with one task each: sign-in, password reset, email verification,
 * post-checkout, the test checkout and the test billing portal. Brand on top, one column.
 */
export default function FocusLayout() {
  const mainRef = useFocusMainOnNavigate();
  return (
    <div className="focus">
      <SkipLink mainRef={mainRef} />
      <header className="focus__header">
        <BrandLink />
      </header>
      <main id="main" ref={mainRef} tabIndex={-1} className="focus__main">
        <Outlet />
      </main>
      <footer className="focus__footer qw-small qw-muted">
        <span>
          © {new Date().getFullYear()} {siteName}
        </span>
        <nav aria-label="Footer">
          <ul className="focus__links">
            <li>
              <Link to="/pricing">Pricing</Link>
            </li>
            <li>
              <Link to="/faq">FAQ</Link>
            </li>
            <li>
              <Link to="/contact">Contact</Link>
            </li>
          </ul>
        </nav>
      </footer>
    </div>
  );
}
