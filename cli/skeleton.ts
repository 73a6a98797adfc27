/**
 * The theme `svc-theme init` writes: a small, complete storefront theme in the folders of every
 * theme (layout, templates, sections with their schemas, a snippet, assets) that passes
 * `svc-theme validate`, renders on the sample data of `svc-theme dev` and passes `svc-theme audit`.
 * Its sections have the names of the storefront's sections that load data (header, footer,
 * featured-products, main-search, main-product, main-collection, main-content), so each receives
 * the same data as the built-in theme's.
 */

const page = (main: string): string =>
  JSON.stringify({ sections: [{ type: 'header' }, { type: main }, { type: 'footer' }] }, null, 2) + '\n';

export function skeletonFiles(name: string): Record<string, string> {
  return {
    'theme.json': `${JSON.stringify({ name, version: '1.0.0' }, null, 2)}\n`,
    'layout/theme.liquid': `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ page_title }} · ${name.replace(/[<>&"{}%]/g, '')}</title>
<link rel="stylesheet" href="{{ 'theme.css' | asset_url }}">
<script src="{{ 'theme.js' | asset_url }}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
{{ sections_header | raw }}
<main id="main" tabindex="-1">
{{ content_for_layout | raw }}
</main>
{{ sections_footer | raw }}
</body>
</html>
`,
    'templates/index.json': `${JSON.stringify(
      {
        sections: [
          { type: 'header' },
          { type: 'hero', settings: { heading: 'Welcome to our shop' } },
          { type: 'featured-products' },
          { type: 'footer' },
        ],
      },
      null,
      2,
    )}\n`,
    'templates/search.json': page('main-search'),
    'templates/category.json': page('main-search'),
    'templates/brand.json': page('main-search'),
    'templates/collection.json': page('main-collection'),
    'templates/product.json': page('main-product'),
    'templates/page.json': page('main-content'),
    'templates/404.json': page('not-found'),
    'sections/header.liquid': `<header class="site-header">
  <a class="logo" href="{{ shop.base }}">{{ section.settings.title }}</a>
  <form role="search" action="{{ shop.base }}/search" method="get" class="search">
    <label for="q">Search</label>
    <input id="q" type="search" name="q" value="{{ request.query.q.first }}">
    <button type="submit">Search</button>
  </form>
  <nav aria-label="Categories">
    <ul>
      {% for category in categories limit: section.settings.max_categories %}<li><a href="{{ shop.base }}/categories/{{ category.slug }}">{{ category.name }}</a></li>{% endfor %}
    </ul>
  </nav>
</header>
{% schema %}
{ "name": "Header", "settings": [
  { "id": "title", "type": "text", "label": "Shop name", "default": "My shop" },
  { "id": "max_categories", "type": "range", "label": "Categories in the menu", "min": 0, "max": 20, "default": 8 } ] }
{% endschema %}
`,
    'sections/hero.liquid': `<section class="hero" aria-labelledby="hero-title" data-accent="{{ section.settings.accent }}">
  <h1 id="hero-title">{{ section.settings.heading }}</h1>
  <p>{{ section.settings.text }}</p>
  <p><a class="button" href="{{ section.settings.link }}">{{ section.settings.link_label }}</a></p>
</section>
{% schema %}
{ "name": "Hero", "settings": [
  { "id": "heading", "type": "text", "label": "Heading", "default": "Find what you are looking for" },
  { "id": "text", "type": "richtext", "label": "Text", "default": "Everything in one place." },
  { "id": "accent", "type": "color", "label": "Accent colour", "default": "#1d4ed8" },
  { "id": "link", "type": "url", "label": "Button link", "default": "/" },
  { "id": "link_label", "type": "text", "label": "Button text", "default": "Browse" } ] }
{% endschema %}
`,
    'sections/featured-products.liquid': `{% if products.size > 0 %}
<section class="featured" aria-labelledby="featured-title">
  <h2 id="featured-title">{{ section.settings.heading }}</h2>
  <ul class="grid">{% for product in products %}{% render 'product-card', product: product, shop: shop %}{% endfor %}</ul>
</section>
{% endif %}
{% schema %}
{ "name": "Featured products", "settings": [
  { "id": "heading", "type": "text", "label": "Heading", "default": "Best sellers" },
  { "id": "sort", "type": "select", "label": "Order", "options": ["best_selling", "newest", "price_asc", "price_desc", "rating"], "default": "best_selling" },
  { "id": "limit", "type": "range", "label": "Products", "min": 1, "max": 24, "default": 8 } ] }
{% endschema %}
`,
    'sections/main-search.liquid': `<section class="search-results" aria-labelledby="results-title">
  <h1 id="results-title">{% if heading %}{{ heading }}{% elsif q != blank %}Results for “{{ q }}”{% else %}All products{% endif %}</h1>
  <p>{{ results.total }} products</p>
  {% if results.items.size > 0 %}
  <ul class="grid">{% for product in results.items %}{% render 'product-card', product: product, shop: shop %}{% endfor %}</ul>
  {% else %}
  <p>{{ section.settings.empty_text }}</p>
  {% endif %}
  {% if pagination.pages.size > 1 %}<nav aria-label="Pages"><ul class="pages">{% for p in pagination.pages %}<li>{% if p.current %}<span aria-current="page">{{ p.number }}</span>{% else %}<a href="{{ p.url }}">{{ p.number }}</a>{% endif %}</li>{% endfor %}</ul></nav>{% endif %}
</section>
{% schema %}
{ "name": "Search results", "settings": [ { "id": "empty_text", "type": "text", "label": "When nothing matches", "default": "No products found." } ] }
{% endschema %}
`,
    'sections/main-product.liquid': `<article class="product" aria-labelledby="product-title">
  {% if product.images.size > 0 %}<img class="main-image" src="{{ product.images.first.url | own_url }}" alt="{{ product.title }}" width="480" height="480">{% endif %}
  <div class="details">
    <h1 id="product-title">{{ product.title }}</h1>
    {% if product.brand %}<p class="brand">by <a href="{{ shop.base }}/brands/{{ product.brand.slug }}">{{ product.brand.name }}</a></p>{% endif %}
    {% if product.price %}<p class="price">{{ product.price | money: product.currency }}</p>{% else %}<p class="price">Ask us for a price.</p>{% endif %}
    <p class="stock">{% if product.inStock %}In stock{% else %}Out of stock{% endif %}</p>
    {% if section.settings.show_description %}<div class="description">{{ product.description }}</div>{% endif %}
  </div>
</article>
{% schema %}
{ "name": "Product", "settings": [ { "id": "show_description", "type": "checkbox", "label": "Show the description", "default": true } ] }
{% endschema %}
`,
    'sections/main-collection.liquid': `<section aria-labelledby="collection-title">
  <h1 id="collection-title">{{ collection.name }}</h1>
  {% if collection.products.size > 0 %}<ul class="grid">{% for product in collection.products %}{% render 'product-card', product: product, shop: shop %}{% endfor %}</ul>{% else %}<p>This collection is empty for now.</p>{% endif %}
</section>
{% schema %}
{ "name": "Collection", "settings": [] }
{% endschema %}
`,
    'sections/main-content.liquid': `<article class="content-page"><h1>{{ content.title }}</h1><div class="rte">{{ content.bodyHtml | raw }}</div></article>
{% schema %}
{ "name": "Content page", "settings": [] }
{% endschema %}
`,
    'sections/not-found.liquid': `<section class="notfound"><h1>{{ section.settings.heading }}</h1><p><a href="{{ shop.base }}/search">Browse all products</a></p></section>
{% schema %}
{ "name": "Not found", "settings": [ { "id": "heading", "type": "text", "label": "Heading", "default": "Page not found" } ] }
{% endschema %}
`,
    'sections/footer.liquid': `<footer class="site-footer">
  <nav aria-label="Shop information">
    <ul>{% for p in content_pages %}<li><a href="{{ shop.base }}/pages/{{ p.slug }}">{{ p.title }}</a></li>{% endfor %}</ul>
  </nav>
  <p>{{ section.settings.text }}</p>
</footer>
{% schema %}
{ "name": "Footer", "settings": [ { "id": "text", "type": "richtext", "label": "Footer text", "default": "Thank you for shopping with us." } ] }
{% endschema %}
`,
    'snippets/product-card.liquid': `<li class="card">
  <a href="{{ shop.base }}/products/{{ product.slug }}">
    {% if product.imageUrl %}<img src="{{ product.imageUrl | own_url }}" alt="" loading="lazy" width="240" height="240">{% endif %}
    <span class="title">{{ product.title }}</span>
  </a>
  {% if product.price %}<p class="price">{{ product.price | money: product.currency }}</p>{% endif %}
</li>
`,
    'assets/theme.css': `:root { --text: #111827; --muted: #374151; --accent: #1d4ed8; --bg: #ffffff; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--text); background: var(--bg); }
a { color: var(--accent); }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 1rem; background: var(--bg); padding: .5rem; }
.site-header, .site-footer, main { padding: 1rem 2rem; }
.site-header { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; border-bottom: 1px solid #d1d5db; }
.site-header nav ul, .site-footer ul { display: flex; gap: 1rem; list-style: none; margin: 0; padding: 0; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: 1.5rem; list-style: none; padding: 0; }
.card img, .main-image { max-width: 100%; height: auto; }
.button { display: inline-block; padding: .6rem 1rem; background: var(--accent); color: #fff; text-decoration: none; border-radius: 4px; }
.price { font-weight: 600; }
.site-footer { border-top: 1px solid #d1d5db; color: var(--muted); }
`,
    'assets/theme.js': `// Progressive enhancement only: every page works without this file.
document.documentElement.classList.add('js');
`,
  };
}
