/**
 * Browser code, part 2: what the views' actions share: moving to another view,
 * signing out, and turning a failed API call into a message.
 *
 * The router (shell.ts) imports the views and the views navigate, so the router
 * hands its render function in at start-up instead of the views importing it.
 */
import { ApiFailure, clearFieldErrors, complain, notify, session, showFieldErrors, signedInPerson } from './core.ts';

let renderView: () => Promise<void> = () => Promise.reject(new Error('The dashboard has not started.'));

/** Called once by the router: what go() and signOut() redraw with. */
export const setRenderer = (render: () => Promise<void>): void => {
  renderView = render;
};

export const accountHash = (id: string): string => '#/accounts/' + encodeURIComponent(id);

// Navigates (without a second render from hashchange) and then shows a message.
export async function go(hash: string, message?: string): Promise<void> {
  if (location.hash !== hash) history.pushState(null, '', hash);
  await renderView();
  if (message) notify(message);
}

/** `everywhere`: every session of the person signed in through the identity provider, not only this one. */
export function signOut(problem?: string, everywhere = false): void {
  const person = signedInPerson.get();
  session.end();
  signedInPerson.forget();
  if (person && !problem) {
    // Ends the session here, then at the identity provider when it offers that (RP-initiated logout).
    void fetch(everywhere ? '/auth/logout-everywhere' : '/auth/logout', { method: 'POST', headers: { Accept: 'application/json', 'X-CSRF-Token': person.csrf_token }, credentials: 'same-origin' })
      .then((response) => (response.ok ? response.json() : null))
      .catch(() => null)
      .then((answer: { logout_url?: string | null } | null) => {
        if (answer?.logout_url) location.assign(answer.logout_url);
        else signOut();
      });
    return;
  }
  history.replaceState(null, '', location.pathname);
  renderView().then(() => (problem ? complain(problem) : notify('Signed out.')));
}

export function handleFailure(e: unknown): void {
  if (e instanceof ApiFailure && e.status === 401) {
    signOut(signedInPerson.get() ? 'Your session ended. Sign in again.' : 'The admin token was refused. Sign in again.');
    return;
  }
  complain(e instanceof Error ? e.message : String(e));
}

// An event handler whose API errors become messages.
export const guarded = (action: (event: Event) => Promise<void>) => (event: Event) => action(event).catch(handleFailure);

// Runs a form's action with its submit button disabled; API errors become messages, each bad
// field's at the field.
export function onSubmit(form: HTMLFormElement, action: (data: FormData) => Promise<void>): HTMLFormElement {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = form.querySelector<HTMLButtonElement>('button[type=submit]');
    if (button) button.disabled = true;
    clearFieldErrors(form);
    try {
      await action(new FormData(form));
    } catch (e) {
      if (e instanceof ApiFailure && e.status === 400) {
        const unshown = showFieldErrors(form, e.problems);
        complain(unshown.length ? unshown.map((p) => p.message).join(' ') : 'Check the marked fields: ' + e.message);
      } else {
        handleFailure(e);
      }
    } finally {
      if (button) button.disabled = false;
    }
  });
  return form;
}
