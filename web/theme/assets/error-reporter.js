/* Reports this page's own JavaScript errors to the platform (POST /api/v1/client-errors/events;
   docs/client-errors.md, "What the storefront and console report"): uncaught errors (kind window),
   unhandled promise rejections (unhandledrejection), failed calls of this page to the API (api),
   storefront sections left out by their render budget (section) and window.reportClientError(message)
   (manual). Loaded before the page's other scripts; its tag names the app and the store:
   <script src="/assets/theme/error-reporter.js" data-app="storefront" data-store-id="…" defer>.
   Events are sent in batches, at most 20 a page, each distinct error once, never about itself. */
/* global document, window, setTimeout, clearTimeout */
(function () {
  'use strict';
  var script = document.currentScript;
  var app = (script && script.getAttribute('data-app')) || 'storefront';
  var storeId = (script && script.getAttribute('data-store-id')) || '';
  var ENDPOINT = '/api/v1/client-errors/events';
  var PAGE_MAX = 20;
  var BATCH_MAX = 50;
  var queue = [];
  var seen = {};
  var sent = 0;
  var timer = null;
  var nativeFetch = window.fetch ? window.fetch.bind(window) : null;

  var cut = function (value, max) { return typeof value === 'string' ? value.slice(0, max) : undefined; };

  function flush() {
    clearTimeout(timer);
    timer = null;
    if (!queue.length || !nativeFetch) return;
    var events = queue.splice(0, BATCH_MAX);
    var body = { app: app, events: events };
    if (/^[0-9a-f-]{36}$/i.test(storeId)) body.storeId = storeId;
    nativeFetch(ENDPOINT, {
      method: 'POST',
      keepalive: true,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    }).catch(function () { /* a report that cannot be sent is dropped, never reported */ });
  }

  function report(kind, level, message, stack) {
    message = String(message || '').trim();
    if (!message || sent >= PAGE_MAX) return;
    var key = kind + '\n' + message + '\n' + (stack || '');
    if (seen[key]) return;
    seen[key] = true;
    sent += 1;
    queue.push({ kind: kind, level: level, message: cut(message, 1000), stack: cut(stack || '', 8000) || undefined, url: cut(window.location.href, 2000) });
    if (!timer) timer = setTimeout(flush, 1000);
  }

  function describe(error) {
    if (error && typeof error === 'object' && typeof error.message === 'string')
      return { message: (error.name && error.name !== 'Error' ? error.name + ': ' : '') + error.message, stack: typeof error.stack === 'string' ? error.stack : '' };
    return { message: String(error), stack: '' };
  }

  window.addEventListener('error', function (e) {
    if (!e || !e.message) return; // a resource that failed to load, not a script error
    var d = e.error ? describe(e.error) : { message: e.message, stack: e.filename ? '    at ' + e.filename + ':' + e.lineno + ':' + e.colno : '' };
    report('window', 'error', d.message, d.stack);
  });
  window.addEventListener('unhandledrejection', function (e) {
    var d = describe(e.reason);
    report('unhandledrejection', 'error', d.message, d.stack);
  });
  // Pages leaving: what is queued goes now (keepalive lets it outlive the page).
  window.addEventListener('pagehide', flush);

  // Failed calls of this page to the API: network failures and 5xx as errors, 4xx as warnings.
  if (nativeFetch) {
    window.fetch = function (input, init) {
      var target = typeof input === 'string' ? input : (input && input.url) || '';
      var method = ((init && init.method) || (input && input.method) || 'GET').toUpperCase();
      var path = target.replace(/^[a-z]+:\/\/[^/]+/i, '').split('?')[0];
      var promise = nativeFetch(input, init);
      if (path.indexOf('/api/') !== 0 || path === ENDPOINT) return promise;
      return promise.then(
        function (res) {
          if (res.status >= 400) report('api', res.status >= 500 ? 'error' : 'warning', method + ' ' + path + ' answered ' + res.status);
          return res;
        },
        function (error) {
          report('api', 'error', method + ' ' + path + ' failed: ' + describe(error).message);
          return Promise.reject(error);
        },
      );
    };
  }

  // Sections the storefront left out (over a render budget, or failed) leave a comment in their place.
  function omittedSections() {
    if (!document.createTreeWalker) return;
    var walker = document.createTreeWalker(document.body || document.documentElement, 128 /* NodeFilter.SHOW_COMMENT */);
    var node;
    while ((node = walker.nextNode())) {
      var match = /^\s*section (\S+) omitted: (.*?)\s*$/.exec(node.nodeValue || '');
      if (match) report('section', 'warning', 'Section ' + match[1] + ' omitted: ' + match[2]);
    }
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', omittedSections);
  else omittedSections();

  window.reportClientError = function (message, level) {
    var d = describe(message);
    report('manual', level === 'warning' || level === 'info' ? level : 'error', d.message, d.stack);
  };
})();
