// Tokens and base styles first: each component's stylesheet (imported by the component) must come after them.
import './ui/theme.css';
import { StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { App } from './app/app';
import { createHydratingRouter } from './app/router';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

if (root.hasAttribute('data-prerendered')) {
  // A public page rendered at build time (web/prerender.ts): adopt its markup.
  void createHydratingRouter().then((router) =>
    hydrateRoot(
      root,
      <StrictMode>
        <App router={router} />
      </StrictMode>,
    ),
  );
} else {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
