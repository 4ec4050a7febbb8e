/** The page a person gets when their sign-in through the identity provider is refused: why, and the way back. */
import { esc, renderPage } from './layout.ts';

export const renderSignInRefusedPage = (reason: string): string =>
  renderPage({
    title: 'Sign-in refused · cardgate',
    description: 'The sign-in was refused.',
    body: `<h1>Sign-in refused</h1><p id="reason">${esc(reason)}</p><ul class="links"><li><a href="/auth/login">Sign in again</a></li><li><a href="/">cardgate</a></li></ul>`,
  });
