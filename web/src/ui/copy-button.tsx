import { useEffect, useRef, useState } from 'react';
import { Button } from './button';

/**
 * Copies `text` to the clipboard and says "Copied" on the button for two seconds (or "Copy failed"
 * where the browser refuses), so the person sees it worked. `label` names what is copied for
 * screen readers ("Copy public key of Work laptop"); the visible text stays short.
 */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);

  async function copy() {
    window.clearTimeout(timer.current);
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
    timer.current = window.setTimeout(() => setState('idle'), 2000);
  }

  return (
    <Button size="small" variant="secondary" aria-label={state === 'idle' ? label : undefined} onClick={copy}>
      <span aria-live="polite">{state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}</span>
    </Button>
  );
}
