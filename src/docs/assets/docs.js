// The docs pages' one script (served from /docs/assets/docs.js; the pages' policy allows no other):
// a search box over /docs/search.json, and a copy button on every code block. Without JavaScript the
// pages read the same, with neither.
(() => {
  const ka = document.documentElement.lang === 'ka';
  const T = ka
    ? {
        search: 'დოკუმენტაციაში ძებნა',
        none: 'ვერაფერი მოიძებნა',
        copy: 'კოპირება',
        copied: 'დაკოპირდა',
        failed: 'ვერ დაკოპირდა',
      }
    : { search: 'Search the docs', none: 'Nothing found', copy: 'Copy', copied: 'Copied', failed: 'Copy failed' };

  // Copy buttons: the block's text as it is written, to paste into a terminal or a file.
  for (const pre of document.querySelectorAll('pre')) {
    const code = pre.querySelector('code') ?? pre;
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'copy';
    button.textContent = T.copy;
    button.setAttribute('aria-label', `${T.copy}: ${code.className.replace('language-', '') || 'code'}`);
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(code.textContent);
        button.textContent = T.copied;
      } catch {
        button.textContent = T.failed;
      }
      setTimeout(() => (button.textContent = T.copy), 2000);
    });
    const box = document.createElement('div');
    box.className = 'code';
    pre.replaceWith(box);
    box.append(button, pre);
  }

  // Search: every word of the query must occur; the title counts most, then the headings.
  const host = document.getElementById('search');
  if (!host) return;
  host.hidden = false;
  const input = host.querySelector('input');
  const list = host.querySelector('ul');
  input.setAttribute('aria-label', T.search);
  input.placeholder = T.search;
  let index = null;
  const load = () => (index ??= fetch('/docs/search.json').then((r) => r.json()));

  const excerpt = (text, word) => {
    const at = text.toLowerCase().indexOf(word);
    if (at < 0) return text.slice(0, 140);
    const start = Math.max(0, at - 60);
    return `${start ? '…' : ''}${text.slice(start, start + 160)}…`;
  };

  function results(entries, query) {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    if (!words.length) return [];
    const scored = [];
    for (const e of entries) {
      const title = e.title.toLowerCase();
      const headings = e.headings.join(' ').toLowerCase();
      const text = e.text.toLowerCase();
      if (!words.every((w) => title.includes(w) || headings.includes(w) || text.includes(w))) continue;
      const score = words.reduce(
        (s, w) =>
          s + (title.includes(w) ? 10 : 0) + (headings.includes(w) ? 3 : 0) + Math.min(text.split(w).length - 1, 5),
        0,
      );
      // A reader on an English page first sees English pages, and on a Georgian one Georgian pages.
      scored.push({ e, score: score + (e.lang === document.documentElement.lang ? 1 : 0) });
    }
    return scored
      .sort((a, b) => b.score - a.score)
      .slice(0, 10)
      .map((s) => s.e);
  }

  async function show() {
    const query = input.value.trim();
    list.replaceChildren();
    if (!query) return;
    const found = results(await load(), query);
    if (input.value.trim() !== query) return; // a newer keystroke
    if (!found.length) {
      const li = document.createElement('li');
      li.className = 'none';
      li.textContent = T.none;
      list.append(li);
      return;
    }
    for (const e of found) {
      const li = document.createElement('li');
      const a = document.createElement('a');
      a.href = e.url;
      a.textContent = e.title;
      if (e.lang === 'ka') a.lang = 'ka';
      const p = document.createElement('span');
      p.textContent = excerpt(e.text, query.toLowerCase().split(/\s+/)[0]);
      li.append(a, p);
      list.append(li);
    }
  }

  input.addEventListener('input', show);
  input.addEventListener('focus', load, { once: true });
  host.addEventListener('submit', (event) => {
    event.preventDefault();
    const first = list.querySelector('a');
    if (first) location.href = first.href;
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      input.value = '';
      list.replaceChildren();
    }
  });
})();
