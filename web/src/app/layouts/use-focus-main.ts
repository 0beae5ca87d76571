import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router-dom';

/** After an in-app navigation, moves focus to <main> so screen readers start on the new screen. */
export function useFocusMainOnNavigate() {
  const mainRef = useRef<HTMLElement>(null);
  const { pathname } = useLocation();
  const shownPath = useRef(pathname);
  useEffect(() => {
    if (shownPath.current === pathname) return;
    shownPath.current = pathname;
    mainRef.current?.focus({ preventScroll: true });
  }, [pathname]);
  return mainRef;
}
