/**
 * The pages' one script, inline (allowed by its hash). It only adds to pages that read fine
 * without it: `<time data-local>` stamps shown in the reader's time zone, `[data-copy]` buttons
 * that copy the text of the element they name, and the landing page's form, sent to
 * POST /v1/validate (the anonymous quota, as any caller without a key).
 */
export const pageScript = `(() => {
  for (const t of document.querySelectorAll('time[data-local]')) {
    const d = new Date(t.getAttribute('datetime'));
    if (!isNaN(d)) { t.title = t.textContent; t.textContent = d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }); }
  }
  for (const b of document.querySelectorAll('button[data-copy]')) {
    const source = document.getElementById(b.dataset.copy);
    const status = document.getElementById(b.dataset.copy + '-status');
    if (!source || !navigator.clipboard) continue;
    b.hidden = false;
    b.addEventListener('click', () => navigator.clipboard.writeText(source.textContent).then(
      () => { if (status) status.textContent = 'Copied.'; },
      () => { if (status) status.textContent = 'Copying failed: select the text and copy it by hand.'; }));
  }
  const form = document.querySelector('form[data-validate]');
  if (!form) return;
  const out = document.getElementById('result');
  form.querySelector('button[type=submit]').hidden = false;
  const show = (html) => { out.innerHTML = html; out.hidden = false; };
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => '&#' + c.charCodeAt(0) + ';');
  const count = (n, word) => esc(n) + ' ' + word + (n === 1 ? '' : 's');
  const problem = (body, status) => {
    if (body && typeof body.error === 'object' && body.error) return body.error.message;
    if (body && typeof body.error === 'string') return body.error;
    if (body && Array.isArray(body.errors) && body.errors.length) return body.errors.map((e) => (e.path ? e.path + ': ' : '') + e.message).join('; ');
    return 'the server answered ' + status;
  };
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const text = form.elements.card.value.trim();
    try { JSON.parse(text); } catch (e) { show('<p role="alert">That is not JSON: ' + esc(e.message) + '</p>'); return; }
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    show('<p role="status">Validating…</p>');
    try {
      // The card's own text goes in as it is, so line numbers in the report are those of the pasted text.
      const res = await fetch('/v1/validate', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: '{"options":{"include_score":true},"agent_card":' + text + '}' });
      const body = await res.json().catch(() => null);
      if (!res.ok || !body || !body.report_url) {
        // A refusal says itself when it resets and what to change, in words.
        show('<p role="alert">Not validated: ' + esc(problem(body, res.status)) + '</p>');
        return;
      }
      const path = new URL(body.report_url).pathname;
      show('<p role="status"><span class="badge ' + (body.valid ? 'ok">Valid' : 'bad">Invalid') + '</span> ' +
        count(body.errors.length, 'error') + ', ' + count(body.warnings.length, 'warning') +
        (typeof body.score === 'number' ? ', score ' + esc(body.score) + '/100' : '') +
        '. <a href="' + esc(path) + '">Open the report</a></p>');
    } catch (e) {
      show('<p role="alert">The server could not be reached: ' + esc(e.message) + '</p>');
    } finally {
      button.disabled = false;
    }
  });
})();`;
