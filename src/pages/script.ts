/**
 * The pages' one script, inline (allowed by its hash). It only adds to pages that read fine
 * without it: `[data-copy]` buttons
 * that copy the text of the element they name, shortened ids (`code.id`, whole in their title) copied whole, and the landing page's form: a pasted, dropped or
 * chosen card, an example, or an agent's URL, sent to POST /v1/validate (the anonymous quota, as any
 * caller without a key), its findings shown with their lines linked into the report.
 */
export const pageScript = `(() => {
  for (const b of document.querySelectorAll('button[data-copy]')) {
    const source = document.getElementById(b.dataset.copy);
    const status = document.getElementById(b.dataset.copy + '-status');
    if (!source || !navigator.clipboard) continue;
    b.hidden = false;
    b.addEventListener('click', () => navigator.clipboard.writeText(source.textContent).then(
      () => { if (status) status.textContent = 'Copied.'; },
      () => { if (status) status.textContent = 'Copying failed: select the text and copy it by hand.'; }));
  }
  document.addEventListener('copy', (e) => {
    const sel = getSelection();
    if (!sel || sel.isCollapsed || !e.clipboardData) return;
    const range = sel.getRangeAt(0);
    const ids = [...document.querySelectorAll('code.id[title]')].filter((c) => range.intersectsNode(c));
    if (!ids.length) return;
    const part = range.cloneContents();
    for (const c of part.querySelectorAll('code.id[title]')) c.textContent = c.title;
    e.clipboardData.setData('text/plain', part.querySelector('code.id[title]') ? part.textContent : ids.length === 1 ? ids[0].title : sel.toString());
    e.preventDefault();
  });
  const form = document.querySelector('form[data-validate]');
  if (!form) return;
  const out = document.getElementById('result');
  const card = form.elements.card;
  const agentUrl = form.elements.url;
  const submit = form.querySelector('button[type=submit]');
  const exampleButton = form.querySelector('button[data-example]');
  const maxBytes = Number(form.dataset.maxBytes);
  submit.hidden = false;
  exampleButton.hidden = false;
  const show = (html) => { out.innerHTML = html; out.hidden = false; };
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => '&#' + c.charCodeAt(0) + ';');
  const count = (n, word) => esc(n) + ' ' + word + (n === 1 ? '' : 's');
  const alert = (text) => show('<p role="alert" class="refusal">' + esc(text) + '</p>');
  const problem = (body, status) => {
    if (body && typeof body.error === 'object' && body.error) return body.error.message;
    if (body && typeof body.error === 'string') return body.error;
    if (body && Array.isArray(body.errors) && body.errors.length) return body.errors.map((e) => (e.path ? e.path + ': ' : '') + e.message).join('; ');
    return 'the server answered HTTP ' + status;
  };
  // A refusal says itself what went wrong, and for a quota when it resets and what to change.
  const refusal = (res, body) => 'Not validated: ' + (res.status === 413 ? 'the card is too large (' + problem(body, res.status) + ').' : problem(body, res.status));
  const findings = (title, list, kind, report) => !list || !list.length ? '' :
    '<h3 class="' + kind + '">' + esc(title) + ' <span class="count">' + list.length + '</span></h3><ul class="findings">' +
    list.map((f) => '<li>' + (f.line ? '<a class="at" href="' + esc(report + '#L' + f.line) + '">' + esc(f.line + ':' + f.column) + '</a>' : '') +
      esc(f.message) + ' <code>' + esc(f.rule || '') + '</code></li>').join('') + '</ul>';
  const load = (text) => { card.value = text; agentUrl.value = ''; card.focus(); };
  exampleButton.addEventListener('click', () => load(document.getElementById('example-card').content.textContent));
  const readFile = (file) => {
    if (!file) return;
    if (file.size > maxBytes) { alert('Not read: ' + file.name + ' has ' + file.size + ' bytes; this server takes cards of at most ' + maxBytes + ' bytes.'); return; }
    file.text().then(load, (e) => alert('Not read: ' + file.name + ': ' + e.message));
  };
  form.elements.file.addEventListener('change', () => readFile(form.elements.file.files[0]));
  card.addEventListener('dragover', (e) => { e.preventDefault(); card.classList.add('dropping'); });
  card.addEventListener('dragleave', () => card.classList.remove('dropping'));
  card.addEventListener('drop', (e) => { e.preventDefault(); card.classList.remove('dropping'); readFile(e.dataTransfer.files[0]); });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const text = card.value.trim();
    const url = agentUrl.value.trim();
    if (text && url) { alert('Give the card or its URL, not both.'); return; }
    if (!text && !url) { alert('Paste a card, drop its file, or give its URL.'); return; }
    if (text) { try { JSON.parse(text); } catch (e) { alert('That is not JSON: ' + e.message); return; } }
    submit.disabled = true;
    show('<p role="status">' + (url ? 'Fetching and validating…' : 'Validating…') + '</p>');
    try {
      // The card's own text goes in as it is, so line numbers in the report are those of the pasted text.
      const res = await fetch('/v1/validate', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: '{"options":{"include_score":true,"include_suggestions":true},' + (url ? '"agent_url":' + JSON.stringify(url) : '"agent_card":' + text) + '}' });
      const body = await res.json().catch(() => null);
      if (!res.ok || !body || !body.report_url) { alert(refusal(res, body)); return; }
      const path = new URL(body.report_url).pathname;
      show('<p role="status"><span class="badge ' + (body.valid ? 'ok">Valid' : 'bad">Invalid') + '</span> ' +
        count(body.errors.length, 'error') + ', ' + count(body.warnings.length, 'warning') +
        (typeof body.score === 'number' ? ', score ' + esc(body.score) + '/100' : '') +
        '. <a href="' + esc(path) + '">Open the report</a></p>' +
        (body.source ? '<p class="muted">Fetched from ' + esc(body.source.url) + '</p>' : '') +
        findings('Errors', body.errors, 'errors', path) + findings('Warnings', body.warnings, 'warnings', path) +
        (body.suggestions && body.suggestions.length ? '<h3>Suggestions</h3><ul class="findings">' + body.suggestions.map((t) => '<li class="suggestion"><code>' + esc(t.field) + '</code> ' + esc(t.suggestion) + '</li>').join('') + '</ul>' : ''));
    } catch (e) {
      alert('The server could not be reached: ' + e.message);
    } finally {
      submit.disabled = false;
    }
  });
})();`;
