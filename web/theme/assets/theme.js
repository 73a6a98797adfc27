/* Progressive enhancement of the server-rendered pages: search suggestions (ARIA combobox), filters
   that apply on change, the price slider, the filters drawer on narrow screens, the product gallery and variant price, and drag-and-drop for photo search.
   Everything works without this file; it only saves clicks. */
/* global document, window, fetch, setTimeout, clearTimeout, URLSearchParams, URL */
(function () {
  'use strict';
  document.documentElement.classList.add('js');
  var body = document.body;
  var storeId = body.getAttribute('data-store-id');
  var shopBase = body.getAttribute('data-shop-base');

  function submit(form) {
    if (form.requestSubmit) form.requestSubmit();
    else form.submit();
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    for (var k in attrs) if (attrs[k] !== undefined && attrs[k] !== null) node.setAttribute(k, attrs[k]);
    if (text) node.textContent = text;
    return node;
  }

  // --- Suggestions: WAI-ARIA combobox with a listbox popup --------------------------------------
  var input = document.querySelector('[data-suggest]');
  if (input && storeId) {
    var list = document.getElementById(input.getAttribute('aria-controls'));
    var live = el('div', { 'aria-live': 'polite', class: 'visually-hidden' });
    input.parentNode.appendChild(live);
    var options = [];
    var active = -1;
    var timer = null;
    var seq = 0;

    var close = function () {
      list.hidden = true;
      input.setAttribute('aria-expanded', 'false');
      input.removeAttribute('aria-activedescendant');
      active = -1;
    };
    var setActive = function (index) {
      options.forEach(function (o, i) { o.setAttribute('aria-selected', i === index ? 'true' : 'false'); });
      active = index;
      if (index >= 0) {
        input.setAttribute('aria-activedescendant', options[index].id);
        options[index].scrollIntoView({ block: 'nearest' });
      } else input.removeAttribute('aria-activedescendant');
    };
    // The service's own images (the sandbox's) as paths: an absolute localhost address breaks when the shop is opened through another host.
    var ownPath = function (url) {
      try {
        var u = new URL(url, window.location.href);
        if (['localhost', '127.0.0.1', '[::1]'].indexOf(u.hostname) >= 0 && u.pathname.indexOf('/api/v1/') === 0) return u.pathname + u.search;
      } catch { /* not a URL: shown as given */ }
      return url;
    };
    var go = function (option) { window.location.href = option.getAttribute('data-href'); };
    var render = function (data) {
      list.textContent = '';
      options = [];
      var add = function (group, items, href, label, image) {
        if (!items.length) return;
        list.appendChild(el('li', { role: 'presentation', class: 'opt-group' }, group));
        items.forEach(function (item) {
          var option = el('li', { role: 'option', id: 'sugg-' + options.length, 'aria-selected': 'false', 'data-href': href(item) });
          if (image && image(item)) option.appendChild(el('img', { src: image(item), alt: '' }));
          option.appendChild(el('span', {}, label(item)));
          option.addEventListener('mousedown', function (e) { e.preventDefault(); go(option); });
          list.appendChild(option);
          options.push(option);
        });
      };
      add('Products', data.products, function (p) { return shopBase + '/products/' + p.slug; }, function (p) { return p.title; }, function (p) { return ownPath(p.imageUrl); });
      add('Categories', data.categories, function (c) { return shopBase + '/categories/' + c.slug; }, function (c) { return c.name; });
      add('Brands', data.brands, function (b) { return shopBase + '/brands/' + b.slug; }, function (b) { return b.name; });
      active = -1;
      if (options.length) {
        list.hidden = false;
        input.setAttribute('aria-expanded', 'true');
        live.textContent = options.length + ' suggestions; use the up and down arrows to choose.';
      } else {
        close();
        live.textContent = '';
      }
    };
    var fetchSuggestions = function () {
      var q = input.value.trim();
      if (!q) { close(); return; }
      var mine = ++seq;
      fetch('/api/v1/catalog/public/suggest?storeId=' + encodeURIComponent(storeId) + '&limit=5&q=' + encodeURIComponent(q.slice(0, 200)))
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (data) { if (data && mine === seq && document.activeElement === input) render(data); })
        .catch(function () {});
    };
    input.addEventListener('input', function () { clearTimeout(timer); timer = setTimeout(fetchSuggestions, 120); });
    input.addEventListener('keydown', function (e) {
      var open = !list.hidden && options.length > 0;
      if (e.key === 'ArrowDown') {
        e.preventDefault();
        if (!open) { fetchSuggestions(); return; }
        setActive(active + 1 >= options.length ? 0 : active + 1);
      } else if (e.key === 'ArrowUp') {
        if (!open) return;
        e.preventDefault();
        setActive(active <= 0 ? options.length - 1 : active - 1);
      } else if (e.key === 'Enter') {
        if (open && active >= 0) { e.preventDefault(); go(options[active]); }
      } else if (e.key === 'Escape') {
        if (open) { e.preventDefault(); close(); } else if (input.value) { e.preventDefault(); input.value = ''; }
      } else if (e.key === 'Home' || e.key === 'End') {
        if (open && active >= 0) setActive(-1);
      }
    });
    input.addEventListener('blur', function () { setTimeout(close, 100); });
  }

  // --- Filters apply when changed (the Apply button is for pages without this script) ----------------
  var filters = document.querySelector('form[data-autosubmit]');
  if (filters) {
    filters.addEventListener('change', function (e) {
      if (e.target && e.target.type === 'number') return; // price fields apply on Enter or blur
      if (e.target && e.target.type === 'range') return; // the price slider applies once it rests (below)
      submit(filters);
    });
    filters.querySelectorAll('input[type=number]').forEach(function (field) {
      field.addEventListener('change', function () { submit(filters); });
    });
    filters.addEventListener('submit', function () {
      // Empty fields stay out of the shareable URL.
      filters.querySelectorAll('input,select').forEach(function (f) { if (f.name && f.value === '' ) f.disabled = true; });
    });
  }

  // --- Price slider: two range inputs bounded by the lowest and highest price of the results ------------
  // They only move the Min and Max fields (the form's priceMin and priceMax, which work without this
  // script); a thumb at its end clears its field (no bound). Applied once the slider rests, so arrow
  // keys can take several steps before the page reloads.
  var slider = document.querySelector('[data-price-slider]');
  if (slider && filters) {
    var from = slider.querySelector('#price-from');
    var to = slider.querySelector('#price-to');
    var output = slider.querySelector('output');
    var lowField = document.getElementById(from.getAttribute('data-for'));
    var highField = document.getElementById(to.getAttribute('data-for'));
    var fmt = function (v) { return Number(v).toLocaleString(undefined, { maximumFractionDigits: 2 }); };
    var applyTimer = null;
    var sync = function (moved) {
      var lo = Number(from.value);
      var hi = Number(to.value);
      if (lo > hi) {
        if (moved === from) { to.value = from.value; hi = lo; } else { from.value = to.value; lo = hi; }
      }
      lowField.value = lo <= Number(from.min) ? '' : from.value;
      highField.value = hi >= Number(to.max) ? '' : to.value;
      output.textContent = fmt(lo) + ' – ' + fmt(hi);
      from.setAttribute('aria-valuetext', fmt(lo));
      to.setAttribute('aria-valuetext', fmt(hi));
    };
    [from, to].forEach(function (range) {
      range.addEventListener('input', function () { sync(range); });
      range.addEventListener('change', function () {
        sync(range);
        clearTimeout(applyTimer);
        applyTimer = setTimeout(function () { submit(filters); }, 600);
      });
    });
    sync(null);
  }

  // --- Filters drawer on narrow screens -------------------------------------------------------------------
  // At 768px and below the CSS hides the filters; the Filters button opens them as a modal drawer: focus
  // moves in and stays in, Escape, the close button or a tap beside it close it, and the page behind
  // does not scroll. Wider screens keep the sidebar (the button is hidden there).
  var opener = document.querySelector('[data-drawer-open]');
  var drawer = opener && document.getElementById(opener.getAttribute('aria-controls'));
  if (opener && drawer) {
    var narrow = window.matchMedia('(max-width: 768px)');
    var backdrop = el('div', { class: 'drawer-backdrop', 'data-drawer-close': '' });
    drawer.parentNode.insertBefore(backdrop, drawer);
    var focusables = function () {
      return Array.prototype.filter.call(
        drawer.querySelectorAll('a[href],button,input,select,textarea,[tabindex]:not([tabindex="-1"])'),
        function (node) { return !node.disabled && node.offsetParent !== null; },
      );
    };
    var isOpen = function () { return drawer.classList.contains('open'); };
    var openDrawer = function () {
      drawer.classList.add('open');
      backdrop.classList.add('open');
      drawer.setAttribute('role', 'dialog');
      drawer.setAttribute('aria-modal', 'true');
      opener.setAttribute('aria-expanded', 'true');
      document.documentElement.classList.add('drawer-open');
      var first = drawer.querySelector('[data-drawer-close]');
      (first || drawer).focus();
    };
    var closeDrawer = function (restoreFocus) {
      if (!isOpen()) return;
      drawer.classList.remove('open');
      backdrop.classList.remove('open');
      drawer.removeAttribute('role');
      drawer.removeAttribute('aria-modal');
      opener.setAttribute('aria-expanded', 'false');
      document.documentElement.classList.remove('drawer-open');
      if (restoreFocus) opener.focus();
    };
    opener.addEventListener('click', function () { if (isOpen()) closeDrawer(true); else openDrawer(); });
    document.querySelectorAll('[data-drawer-close]').forEach(function (button) {
      button.addEventListener('click', function () { closeDrawer(true); });
    });
    document.addEventListener('keydown', function (e) {
      if (!isOpen()) return;
      if (e.key === 'Escape') {
        e.preventDefault();
        closeDrawer(true);
      } else if (e.key === 'Tab') {
        var items = focusables();
        if (!items.length) return;
        var first = items[0];
        var last = items[items.length - 1];
        if (e.shiftKey && (document.activeElement === first || document.activeElement === drawer)) { e.preventDefault(); last.focus(); }
        else if (!e.shiftKey && document.activeElement === last) { e.preventDefault(); first.focus(); }
      }
    });
    // Focus that leaves the open drawer (a radio group's Tab, a click behind it) comes back into it.
    document.addEventListener('focusin', function (e) {
      if (isOpen() && !drawer.contains(e.target)) (drawer.querySelector('[data-drawer-close]') || drawer).focus();
    });
    // Growing past the breakpoint (a phone turned sideways) shows the sidebar again: no drawer left open.
    var onWidth = function () { if (!narrow.matches) closeDrawer(false); };
    if (narrow.addEventListener) narrow.addEventListener('change', onWidth);
    else if (narrow.addListener) narrow.addListener(onWidth);
  }

  // --- Product gallery and variant price -----------------------------------------------------------
  var main = document.getElementById('gallery-main');
  document.querySelectorAll('[data-gallery-thumb]').forEach(function (link) {
    link.addEventListener('click', function (e) {
      if (!main) return;
      e.preventDefault();
      var img = link.querySelector('img');
      main.src = link.getAttribute('href');
      main.alt = img ? img.alt : main.alt;
    });
  });
  var price = document.getElementById('product-price');
  document.querySelectorAll('input[name=variant]').forEach(function (radio) {
    radio.addEventListener('change', function () { if (price && radio.getAttribute('data-price')) price.textContent = radio.getAttribute('data-price'); });
  });

  // --- Counters of the public API: product views and sponsored clicks ------------------------------------
  var viewed = document.querySelector('article.product[data-product-id]');
  if (viewed && storeId) {
    fetch('/api/v1/catalog/public/stores/' + storeId + '/products/' + viewed.getAttribute('data-product-id') + '/view', { method: 'POST', keepalive: true }).catch(function () {});
  }
  document.querySelectorAll('[data-sponsored-listing] a').forEach(function (link) {
    link.addEventListener('click', function () {
      var card = link.closest('[data-sponsored-listing]');
      var q = new URLSearchParams(window.location.search).get('q') || '';
      fetch('/api/v1/storefront/sponsored-listings/click', {
        method: 'POST',
        keepalive: true,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ listingId: card.getAttribute('data-sponsored-listing'), storeId: storeId, productId: card.getAttribute('data-product-id'), query: q.slice(0, 200) }),
      }).catch(function () {});
    });
  });

  // --- Photo search: drop an image on the form ------------------------------------------------------
  var zone = document.querySelector('[data-dropzone]');
  if (zone) {
    var file = zone.querySelector('input[type=file]');
    ['dragenter', 'dragover'].forEach(function (t) { zone.addEventListener(t, function (e) { e.preventDefault(); zone.classList.add('over'); }); });
    ['dragleave', 'drop'].forEach(function (t) { zone.addEventListener(t, function () { zone.classList.remove('over'); }); });
    zone.addEventListener('drop', function (e) {
      e.preventDefault();
      if (e.dataTransfer && e.dataTransfer.files.length) {
        file.files = e.dataTransfer.files;
        submit(zone);
      }
    });
    file.addEventListener('change', function () { if (file.files.length) submit(zone); });
  }
})();
