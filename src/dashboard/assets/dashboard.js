// Progressive enhancement only: every page works without it. With it: a form being sent cannot be
// sent twice (its buttons wait; the server also runs a payment action's form once, by its nonce),
// and a logo can be chosen as an image file instead of pasting its data: URL.
(function () {
  'use strict';

  document.querySelectorAll('form[data-busy]').forEach(function (form) {
    form.addEventListener('submit', function () {
      form.setAttribute('aria-busy', 'true');
      // After this turn: the clicked button's name and value are already in what is sent.
      setTimeout(function () {
        form.querySelectorAll('button[type=submit]').forEach(function (b) {
          b.disabled = true;
        });
      }, 0);
    });
  });
  // Back from another page (bfcache): the buttons work again.
  window.addEventListener('pageshow', function () {
    document.querySelectorAll('form[data-busy] button[disabled]').forEach(function (b) {
      b.disabled = false;
    });
  });

  document.querySelectorAll('input[type=file][data-into]').forEach(function (input) {
    var target = document.getElementById(input.getAttribute('data-into'));
    if (!target) return;
    input.closest('[hidden]') && input.closest('[hidden]').removeAttribute('hidden');
    input.addEventListener('change', function () {
      var file = input.files && input.files[0];
      if (!file) return;
      var reader = new FileReader();
      reader.onload = function () {
        target.value = String(reader.result);
      };
      reader.readAsDataURL(file);
    });
  });
})();
