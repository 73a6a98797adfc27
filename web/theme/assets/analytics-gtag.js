// Sets up the Google tag (GA4) for the measurement id of this script's data-measurement-id attribute,
// as Google's own snippet does, without inline code (the storefront's Content-Security-Policy has none).
/* global document, window */
(function () {
  var script = document.currentScript;
  var id = script && script.getAttribute('data-measurement-id');
  if (!id || !/^G-[A-Z0-9]{4,16}$/.test(id)) return;
  window.dataLayer = window.dataLayer || [];
  function gtag() {
    window.dataLayer.push(arguments);
  }
  gtag('js', new Date());
  gtag('config', id);
})();
