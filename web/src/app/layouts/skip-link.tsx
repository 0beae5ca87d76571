import type { RefObject } from 'react';

/** The first focusable element of every layout: jumps past the header to <main>. */
export function SkipLink({ mainRef }: { mainRef: RefObject<HTMLElement | null> }) {
  return (
    // biome-ignore lint/a11y/useValidAnchor: a skip link is an in-page link by convention; it moves focus to main
    <a
      className="qw-skip-link"
      href="#main"
      onClick={(event) => {
        event.preventDefault();
        mainRef.current?.focus();
      }}
    >
      Skip to content
    </a>
  );
}
