import type { RefObject } from 'react';

/** The first focusable element of every layout: jumps past the header to <main>. */
export function SkipLink({ mainRef }: { mainRef: RefObject<HTMLElement | null> }) {
  return (
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
