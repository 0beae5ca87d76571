import { Link } from 'react-router-dom';
import { siteName } from '../../config/site';

/** The Quietwire logo and name, linking home (styles in public-layout.css, which every page loads). */
export function BrandLink() {
  return (
    <Link to="/" className="site-brand">
      <Logo />
      {siteName}
    </Link>
  );
}

function Logo() {
  return (
    <svg className="site-brand__logo" viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="7" className="site-brand__logo-bg" />
      <path
        d="M6 19c3-6 6-6 10 0s7 6 10 0"
        fill="none"
        className="site-brand__logo-wave"
        strokeWidth="3"
        strokeLinecap="round"
      />
    </svg>
  );
}
