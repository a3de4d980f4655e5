// The language table: Accept-Language parsing, the switcher's list, and dictionaries complete for
// every language (the types demand it; this checks no text is left empty or untranslated by copy).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TEXTS as CHECKOUT } from '../checkout/i18n.ts';
import { TEXTS as DASHBOARD } from '../dashboard/i18n.ts';
import { addressIn, languageLinks, languageSwitch } from '../html/language-switch.ts';
import {
  DEFAULT_LANGUAGE,
  LANGUAGE_INFO,
  LANGUAGES,
  fromAcceptLanguage,
  languageOf,
  otherLanguages,
} from './languages.ts';

describe('the language table', () => {
  it('reads the browser’s Accept-Language: weights, regions, wildcards; anything else is the default', () => {
    const cases: [string | undefined, string][] = [
      ['en', 'en'],
      ['en-US;q=0.9', 'en'],
      ['en-US,en;q=0.9', 'en'],
      ['ka', 'ka'],
      ['ka-GE,ka;q=0.9,en;q=0.8', 'ka'],
      ['de-DE,de;q=0.9,en;q=0.8', 'en'],
      ['en;q=0.5, ka;q=0.8', 'ka'],
      ['EN-gb', 'en'],
      ['de, fr', DEFAULT_LANGUAGE],
      ['en;q=0', DEFAULT_LANGUAGE],
      ['*', DEFAULT_LANGUAGE],
      ['', DEFAULT_LANGUAGE],
      [undefined, DEFAULT_LANGUAGE],
      ['\u0000\u00ff;;;q=abc,,,', DEFAULT_LANGUAGE],
      ['en;q=2', DEFAULT_LANGUAGE],
      ['en;q=0.x', DEFAULT_LANGUAGE],
      ['<script>en</script>', DEFAULT_LANGUAGE],
      [`${'x'.repeat(2000)},en`, DEFAULT_LANGUAGE],
    ];
    for (const [header, expected] of cases) assert.equal(fromAcceptLanguage(header), expected, JSON.stringify(header));
    assert.equal(fromAcceptLanguage(['en'] as unknown), DEFAULT_LANGUAGE, 'a repeated header (an array) is no answer');
  });

  it('takes a language code in any case and nothing else', () => {
    assert.equal(languageOf('EN'), 'en');
    assert.equal(languageOf('ka'), 'ka');
    for (const v of ['english', 'e', '', null, 1, 'en-US', 'constructor'])
      assert.equal(languageOf(v), undefined, String(v));
  });

  it('offers every other language in the switcher, each named in itself, never the page’s own', () => {
    for (const lang of LANGUAGES) {
      const others = otherLanguages(lang);
      assert.deepEqual(
        others,
        LANGUAGES.filter((l) => l !== lang),
      );
      const links = languageLinks(lang, (l) =>
        addressIn('/dashboard/payments?status=Failed&notice=saved&lang=x', l, ['notice']),
      );
      assert.deepEqual(
        links.map((l) => l.lang),
        others,
      );
      const markup = languageSwitch(links).map(String).join('');
      for (const o of others) {
        assert.ok(
          markup.includes(
            `<a class="lang" href="/dashboard/payments?status=Failed&amp;lang=${o}" lang="${LANGUAGE_INFO[o].htmlLang}" hreflang="${LANGUAGE_INFO[o].htmlLang}">${LANGUAGE_INFO[o].name}</a>`,
          ),
          markup,
        );
      }
      assert.ok(!markup.includes(`lang=${lang}"`), 'no link to the page’s own language');
    }
  });

  it('has every text of the checkout and the dashboard in every language, none empty', () => {
    for (const [name, dictionary] of [
      ['checkout', CHECKOUT],
      ['dashboard', DASHBOARD],
    ] as const) {
      const keys = Object.keys(dictionary[DEFAULT_LANGUAGE]).sort();
      for (const lang of LANGUAGES) {
        const t = dictionary[lang] as Record<string, unknown>;
        assert.deepEqual(Object.keys(t).sort(), keys, `${name} ${lang}`);
        assert.equal(t.lang, lang);
        assert.equal(t.locale, LANGUAGE_INFO[lang].locale);
        for (const [k, v] of Object.entries(t))
          if (typeof v === 'string') assert.ok(v.trim() !== '', `${name} ${lang} ${k} is empty`);
      }
    }
  });
});
