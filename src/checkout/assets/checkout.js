// Progressive enhancement only: every page works without it (server-side validation and text,
// a <noscript> refresh while waiting). With it: the countdown to expiry, card fields formatted as
// they are typed with the card scheme recognised, live Web QR status without reloading the page,
// the processing page noticing the bank's answer, and no double submission of a form.
(function () {
  'use strict';
  var $ = function (sel, root) {
    return (root || document).querySelector(sel);
  };

  // Seconds left as the gateway's clock saw them (the sandbox clock may differ from the browser's).
  var clock = $('[data-seconds-left]');
  if (clock) {
    var end = Date.now() + 1000 * Number(clock.getAttribute('data-seconds-left'));
    var tick = function () {
      var left = Math.max(0, Math.round((end - Date.now()) / 1000));
      var h = Math.floor(left / 3600);
      var m = Math.floor(left / 60) % 60;
      var s = left % 60;
      // h:mm:ss from an hour up (a payment may live up to 24 hours), m:ss below.
      clock.textContent = (h ? h + ':' + (m < 10 ? '0' : '') : '') + m + ':' + (s < 10 ? '0' : '') + s;
      if (left === 0) return window.location.reload();
      setTimeout(tick, 1000);
    };
    tick();
  }

  var status = function (url) {
    return fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store', credentials: 'same-origin' }).then(
      function (r) {
        if (!r.ok) throw new Error('status ' + r.status);
        return r.json();
      },
    );
  };

  // Waiting for the acquirer: the page changes once the payment does.
  var poll = $('[data-poll]');
  if (poll) {
    var start = poll.getAttribute('data-status');
    var check = function () {
      status(poll.getAttribute('data-poll'))
        .then(function (s) {
          if (s.status !== start || s.challenge) window.location.reload();
          else setTimeout(check, 1500);
        })
        .catch(function () {
          setTimeout(check, 3000);
        });
    };
    setTimeout(check, 1500);
  }

  // Web QR: the status line follows the payment in place (focus and the rest of the page stay);
  // only a finished payment moves to the result page.
  var qr = $('[data-qr-status]');
  if (qr) {
    var line = $('.live', qr);
    var text = $('[data-live-text]', qr);
    var attempts = Number(qr.getAttribute('data-attempts'));
    var max = Number(qr.getAttribute('data-max-attempts'));
    var polls = 0;
    var show = function (state, words) {
      line.setAttribute('data-state', state);
      if (text.textContent !== words) text.textContent = words;
    };
    var watch = function () {
      status(qr.getAttribute('data-qr-status'))
        .then(function (s) {
          qr.setAttribute('data-polls', String(++polls));
          if (s.final || s.challenge) {
            if (s.status === 'Succeeded' || s.status === 'WaitingConfirm')
              show('done', qr.getAttribute('data-text-done'));
            window.location.assign(qr.getAttribute('data-result-url'));
            return;
          }
          if (s.status === 'Processing') show('processing', qr.getAttribute('data-text-processing'));
          else if (s.attempts !== attempts) {
            attempts = s.attempts;
            show('declined', qr.getAttribute('data-text-declined').replace('{n}', String(Math.max(0, max - attempts))));
          }
          setTimeout(watch, 2000);
        })
        .catch(function () {
          setTimeout(watch, 4000);
        });
    };
    setTimeout(watch, 2000);
  }

  // Card number: groups as printed on the card, scheme from the first digits (the marks carry the
  // rules, so the server's list is the only one).
  var number = $('[data-card-number]');
  if (number) {
    var marks = [].slice.call(document.querySelectorAll('.field-marks [data-scheme]'));
    var box = $('.field-marks');
    var live = $('[data-scheme-live]');
    var schemes = marks.map(function (el) {
      return {
        el: el,
        name: el.getAttribute('data-name'),
        re: new RegExp(el.getAttribute('data-prefix')),
        groups: el.getAttribute('data-groups').split(',').map(Number),
      };
    });
    var known = null;
    var digitsBefore = '';
    var format = function (e) {
      var value = number.value;
      var caret = number.selectionStart === null ? value.length : number.selectionStart;
      var at = value.slice(0, caret).replace(/\D/g, '').length;
      var digits = value.replace(/\D/g, '');
      // Backspace over a group's space deletes the digit before it.
      if (e && e.inputType === 'deleteContentBackward' && digits === digitsBefore && at > 0) {
        digits = digits.slice(0, at - 1) + digits.slice(at);
        at -= 1;
      }
      var scheme = null;
      for (var i = 0; i < schemes.length; i++) if (schemes[i].re.test(digits)) scheme = schemes[i];
      var groups = scheme ? scheme.groups : [4, 4, 4, 4, 3];
      var out = '';
      var used = 0;
      for (var g = 0; g < groups.length && used < digits.length; g++) {
        out += (out ? ' ' : '') + digits.substr(used, groups[g]);
        used += groups[g];
      }
      digitsBefore = digits.slice(0, used);
      number.value = out;
      var pos = 0;
      for (var seen = 0; pos < out.length && seen < at; pos++) if (out.charAt(pos) !== ' ') seen++;
      if (document.activeElement === number) number.setSelectionRange(pos, pos);
      if (scheme !== known) {
        known = scheme;
        box.classList.toggle('known', !!scheme);
        schemes.forEach(function (s) {
          s.el.classList.toggle('on', s === scheme);
        });
        if (live) live.textContent = scheme ? live.getAttribute('data-scheme-live') + ': ' + scheme.name : '';
      }
    };
    number.addEventListener('input', format);
    if (number.value) format();
  }

  // Expiry: MM/YY, the slash put in for the customer ("5" becomes "05/").
  var expiry = $('[data-expiry]');
  if (expiry) {
    expiry.addEventListener('input', function (e) {
      var raw = expiry.value.replace(/^(\d)\s*\//, '0$1/');
      var d = raw.replace(/\D/g, '');
      if (d.length === 1 && d > '1') d = '0' + d;
      d = d.slice(0, 4);
      var deleting = e.inputType && e.inputType.indexOf('delete') === 0;
      expiry.value = d.length > 2 ? d.slice(0, 2) + '/' + d.slice(2) : d.length === 2 && !deleting ? d + '/' : d;
    });
  }

  [].forEach.call(document.querySelectorAll('[data-digits]'), function (input) {
    input.addEventListener('input', function () {
      var d = input.value.replace(/\D/g, '');
      if (d !== input.value) input.value = d;
    });
  });

  // One submission per form: a second click while the first is on its way does nothing.
  document.addEventListener('submit', function (e) {
    var form = e.target;
    if (form.getAttribute('aria-busy') === 'true') return e.preventDefault();
    form.setAttribute('aria-busy', 'true');
    var button = e.submitter;
    var label = button && button.classList.contains('primary') && form.getAttribute('data-busy');
    if (label) {
      var span = button.querySelector('span') || button;
      span.textContent = label;
    }
  });
  window.addEventListener('pageshow', function (e) {
    if (e.persisted)
      [].forEach.call(document.querySelectorAll('form[aria-busy]'), function (f) {
        f.removeAttribute('aria-busy');
      });
  });
})();
