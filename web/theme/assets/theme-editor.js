/* The console's theme editor, enhanced: blocks of a repeater are added, removed and moved with buttons
   (the position numbers and keep/add checkboxes the form posts are kept up to date, hidden), and rich
   text is edited in place (bold, italic, link, list) and copied as HTML into its textarea, which the
   form posts. Without this file the form works as it is: checkboxes, position numbers and HTML.
   The server sanitises the HTML whatever this file sends. */
/* global document, window */
(function () {
  'use strict';
  var form = document.querySelector('[data-theme-editor]');
  if (!form) return;

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    for (var k in attrs) if (attrs[k] !== undefined && attrs[k] !== null) node.setAttribute(k, attrs[k]);
    if (text) node.textContent = text;
    return node;
  }

  function button(text, label) {
    return el('button', { type: 'button', class: 'link', 'aria-label': label || text }, text);
  }

  // --- Rich text: a contenteditable region with a small toolbar over the textarea ----------------
  var SAFE_LINK = /^(\/(?!\/)|#|https?:\/\/|mailto:)/i;

  function richText(textarea) {
    if (textarea.getAttribute('data-enhanced')) return;
    textarea.setAttribute('data-enhanced', 'true');
    var wrap = el('div', { class: 'wysiwyg' });
    var toolbar = el('div', { class: 'wysiwyg-toolbar', role: 'toolbar', 'aria-label': 'Formatting of ' + textarea.getAttribute('data-label') });
    var area = el('div', {
      class: 'wysiwyg-area',
      contenteditable: 'true',
      role: 'textbox',
      'aria-multiline': 'true',
      'aria-label': textarea.getAttribute('data-label'),
      'data-wysiwyg': textarea.name,
    });
    area.innerHTML = textarea.value;
    var sync = function () {
      textarea.value = area.innerHTML;
    };
    [
      ['Bold', 'bold'],
      ['Italic', 'italic'],
      ['List', 'insertUnorderedList'],
      ['Link', 'createLink'],
    ].forEach(function (entry) {
      var b = el('button', { type: 'button', 'aria-label': entry[0] }, entry[0]);
      // Keep the selection in the text: the button must not take the focus on press.
      b.addEventListener('mousedown', function (event) {
        event.preventDefault();
      });
      b.addEventListener('click', function () {
        area.focus();
        if (entry[1] === 'createLink') {
          var url = window.prompt('Link address (/path, https://…, mailto:…)', 'https://');
          if (!url || !SAFE_LINK.test(url.trim())) return;
          document.execCommand('createLink', false, url.trim());
        } else {
          document.execCommand(entry[1], false);
        }
        sync();
      });
      toolbar.appendChild(b);
    });
    area.addEventListener('input', sync);
    wrap.appendChild(toolbar);
    wrap.appendChild(area);
    textarea.parentNode.insertBefore(wrap, textarea);
    textarea.hidden = true;
    var hint = textarea.parentNode.querySelector('[data-richtext-hint]');
    if (hint) hint.hidden = true;
    // The label points at the hidden textarea; clicking it edits the text.
    var label = form.querySelector('label[for="' + textarea.id + '"]');
    if (label)
      label.addEventListener('click', function (event) {
        event.preventDefault();
        area.focus();
      });
  }

  // --- Repeaters: add, remove, reorder blocks -----------------------------------------------------
  function setUpRepeater(repeater) {
    var id = repeater.getAttribute('data-repeater');
    var max = Number(repeater.getAttribute('data-max')) || 50;
    var blank = repeater.querySelector('[data-blank-block]');
    var hint = repeater.querySelector('[data-no-script-hint]');
    if (hint) hint.hidden = true;
    var template = blank ? blank.cloneNode(true) : null;
    if (blank) blank.parentNode.removeChild(blank);
    var next = 0;
    var add = button('Add block', 'Add a block to ' + (repeater.querySelector('legend') || {}).textContent);
    add.className = '';
    repeater.appendChild(add);

    function blocks() {
      return Array.prototype.filter.call(repeater.querySelectorAll('[data-block]'), function (b) {
        return b.parentNode === repeater;
      });
    }

    function renumber() {
      var all = blocks();
      all.forEach(function (block, index) {
        var pos = block.querySelector('input[name$="._pos"]');
        if (pos) pos.value = String(index + 1);
        var legend = block.querySelector('legend');
        if (legend) legend.textContent = 'Block ' + (index + 1);
        block.querySelector('[data-move="up"]').disabled = index === 0;
        block.querySelector('[data-move="down"]').disabled = index === all.length - 1;
      });
      add.disabled = all.length >= max;
    }

    function enhance(block) {
      var controls = block.querySelector('[data-block-controls]');
      if (controls) controls.hidden = true;
      var tools = el('p', { class: 'inline block-tools' });
      var up = button('Move up');
      up.setAttribute('data-move', 'up');
      var down = button('Move down');
      down.setAttribute('data-move', 'down');
      var remove = button('Remove block');
      up.addEventListener('click', function () {
        var prev = block.previousElementSibling;
        if (prev && prev.hasAttribute('data-block')) repeater.insertBefore(block, prev);
        renumber();
        up.focus();
      });
      down.addEventListener('click', function () {
        var after = block.nextElementSibling;
        if (after && after.hasAttribute('data-block')) repeater.insertBefore(after, block);
        renumber();
        down.focus();
      });
      remove.addEventListener('click', function () {
        block.parentNode.removeChild(block);
        renumber();
        add.focus();
      });
      tools.appendChild(up);
      tools.appendChild(down);
      tools.appendChild(remove);
      block.appendChild(tools);
      var n = Number(block.getAttribute('data-n'));
      if (n >= next) next = n + 1;
    }

    blocks().forEach(enhance);
    if (template) next = Math.max(next, Number(template.getAttribute('data-n')) + 1);

    add.addEventListener('click', function () {
      if (!template || blocks().length >= max) return;
      var n = next++;
      var block = template.cloneNode(true);
      var from = 'r.' + id + '.' + template.getAttribute('data-n') + '.';
      var to = 'r.' + id + '.' + n + '.';
      var fromId = 'block-' + id + '-' + template.getAttribute('data-n');
      var toId = 'block-' + id + '-' + n;
      block.removeAttribute('data-blank-block');
      block.setAttribute('data-n', String(n));
      Array.prototype.forEach.call(block.querySelectorAll('[name],[id],label[for]'), function (node) {
        if (node.name) node.name = node.name.replace(from, to);
        if (node.id) node.id = node.id.replace(fromId, toId);
        var target = node.getAttribute('for');
        if (target) node.setAttribute('for', target.replace(fromId, toId));
      });
      var keep = block.querySelector('input[name$="._keep"]');
      if (keep) keep.checked = true;
      repeater.insertBefore(block, add);
      enhance(block);
      Array.prototype.forEach.call(block.querySelectorAll('[data-richtext]'), richText);
      renumber();
      var first = block.querySelector('input:not([type="hidden"]):not([type="checkbox"]):not([type="number"]), select, textarea');
      if (first) first.focus();
    });
    renumber();
  }

  Array.prototype.forEach.call(form.querySelectorAll('[data-repeater]'), setUpRepeater);
  Array.prototype.forEach.call(form.querySelectorAll('[data-richtext]'), richText);
  form.addEventListener('submit', function () {
    Array.prototype.forEach.call(form.querySelectorAll('[data-wysiwyg]'), function (area) {
      var textarea = form.querySelector('textarea[name="' + area.getAttribute('data-wysiwyg') + '"]');
      if (textarea) textarea.value = area.innerHTML;
    });
  });
})();
