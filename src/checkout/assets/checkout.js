// Progressive enhancement only: the page works without it (server-side countdown text, meta
// refresh while waiting). Countdown to expiry, and status polling while a QR code or an acquirer
// answer is pending.
(function () {
  'use strict';
  // Seconds left as the gateway's clock saw them (the sandbox clock may differ from the browser's).
  var clock = document.querySelector('[data-seconds-left]');
  if (clock) {
    var end = Date.now() + 1000 * Number(clock.getAttribute('data-seconds-left'));
    var tick = function () {
      var left = Math.max(0, Math.round((end - Date.now()) / 1000));
      var m = Math.floor(left / 60);
      var s = left % 60;
      clock.textContent = m + ':' + (s < 10 ? '0' : '') + s;
      if (left === 0) {
        window.location.reload();
        return;
      }
      setTimeout(tick, 1000);
    };
    tick();
  }
  var poll = document.querySelector('[data-poll]');
  if (poll) {
    var url = poll.getAttribute('data-poll');
    var start = poll.getAttribute('data-status');
    var check = function () {
      fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store' })
        .then(function (r) { return r.json(); })
        .then(function (s) {
          if (s.status !== start || s.challenge) window.location.reload();
          else setTimeout(check, 1500);
        })
        .catch(function () { setTimeout(check, 3000); });
    };
    setTimeout(check, 1500);
  }
})();
