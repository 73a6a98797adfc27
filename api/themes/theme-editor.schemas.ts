/** The response of the theme editor's read (docs/themes.md, "The theme editor"): an extension. */
import Joi from 'joi';
import { dto } from '../http/route';
import { SETTING_TYPES } from '../../domain/theme-package/schema-rules';

const settingField = (nested: boolean, fields?: Joi.ObjectSchema): Joi.ObjectSchema =>
  Joi.object({
    id: Joi.string().required(),
    type: Joi.string()
      .valid(...SETTING_TYPES.filter((t) => !nested || t !== 'repeater'))
      .required(),
    label: Joi.string().allow('').required().description('The schema’s label; the id when it has none.'),
    info: Joi.string().description('The schema’s help text, when it has one.'),
    default: Joi.any().description('The schema’s default, when it has one.'),
    options: Joi.array()
      .items(Joi.object({ value: Joi.string().required(), label: Joi.string().required() }).label('ThemeEditorOption'))
      .description('select: its options.'),
    min: Joi.number().description('number, range: the least value.'),
    max: Joi.number().description('number, range: the greatest value.'),
    step: Joi.number().description('number, range: the step.'),
    maxItems: Joi.number().integer().description('repeater: the most items (50 unless the schema says fewer).'),
    ...(fields ? { fields: Joi.array().items(fields).description('repeater: the fields of each item.') } : {}),
  }).label(nested ? 'ThemeEditorField' : 'ThemeEditorSetting');

const Field = settingField(true);
const Setting = settingField(false, Field);

const Section = Joi.object({
  id: Joi.string().required().description('The section id the settings are saved under: its type, or `<type>-<n>`.'),
  type: Joi.string().required(),
  name: Joi.string().required().description('The schema’s name; the type when the schema cannot be read.'),
  editable: Joi.boolean().required().description('false when the section has no readable `{% schema %}` (nothing to edit).'),
  settings: Joi.array().items(Setting).required().description('Its schema’s settings, in the schema’s order.'),
  values: Joi.object()
    .unknown(true)
    .required()
    .description('The values the storefront uses now: the schema’s defaults, under the template’s settings, under the saved ones.'),
  saved: Joi.boolean().required().description('The store has saved settings for this section.'),
}).label('ThemeEditorSection');

export const ThemeEditorResponse = dto(
  'ThemeEditorResponse',
  Joi.object({
    theme: Joi.string().required().description('`default` (the built-in theme) or the active package’s id.'),
    package: Joi.object({ id: Joi.string().required(), name: Joi.string().required(), version: Joi.string().required() })
      .allow(null)
      .required()
      .description('The active package; null for the built-in theme.'),
    templates: Joi.array()
      .items(
        Joi.object({
          name: Joi.string().required().description('The template’s file name without `.json`, e.g. index.'),
          sections: Joi.array().items(Section).required().description('In the template’s order.'),
        }).label('ThemeEditorTemplate'),
      )
      .required()
      .description('By name.'),
  }),
);
