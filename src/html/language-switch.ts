// The language switcher of the checkout and the dashboard: a link to the same page in every other
// language of the table (src/i18n/languages.ts), each named in its own language, never a binary
// "the other one".
import { LANGUAGE_INFO, otherLanguages, type Language } from '../i18n/languages.ts';
import { html, type Html } from './html.ts';

export interface LanguageLink {
  lang: Language;
  href: string;
}

/** The links of a page in `current` to itself in every other language. */
export const languageLinks = (current: Language, href: (lang: Language) => string): LanguageLink[] =>
  otherLanguages(current).map((lang) => ({ lang, href: href(lang) }));

/**
 * An address (path and query) in another language: `?lang=` set, and the query parameters that
 * belong to one visit (a notice after a redirect) left out.
 */
export function addressIn(address: string, lang: Language, dropped: readonly string[] = []): string {
  const url = new URL(address, 'http://page');
  for (const key of ['lang', ...dropped]) url.searchParams.delete(key);
  url.searchParams.set('lang', lang);
  return `${url.pathname}?${url.searchParams.toString()}`;
}

/** The switcher's links, each marked with its language so a screen reader pronounces the name right. */
export const languageSwitch = (links: readonly LanguageLink[], icon?: Html): Html[] =>
  links.map(({ lang, href }) => {
    const l = LANGUAGE_INFO[lang];
    return html`<a class="lang" href="${href}" lang="${l.htmlLang}" hreflang="${l.htmlLang}">${icon ? html`${icon}<span>${l.name}</span>` : l.name}</a>`;
  });
