/**
 * The theme editor's read (an extension; docs/themes.md, "The theme editor"): listed in the themes
 * route table next to the other theme operations.
 */
import type { RouteRequest, RouteRow } from '../http/route';
import { storeId } from '../http/schema-types';
import { ThemeEditorResponse } from './theme-editor.schemas';
import { themeEditorView } from './theme-editor.service';

type Params = Record<string, string>;

export const themeEditorRoute: RouteRow = {
  operationId: 'themes.editor',
  method: 'GET',
  path: '/themes/editor',
  summary: 'The active theme’s templates and sections with their schemas and current values (extension)',
  description:
    'Extension (the console’s theme editor). The store’s active theme (its active package, else the built-in theme `default`): every template (templates/<name>.json) with its sections in order, each with the id its settings are saved under, its schema’s settings (type, label, default, select options, number bounds, repeater fields) and the values the storefront uses now (schema defaults, under the template’s settings, under the saved ones). A section whose schema cannot be read has `editable: false`. Members of the tenant, or an API key of the store with themes:read; another tenant’s store answers 404.',
  query: { storeId: storeId() },
  response: ThemeEditorResponse,
  status: 200,
  handler: (req: RouteRequest<Params, Params>) => themeEditorView(req.context, req.query.storeId!),
};
