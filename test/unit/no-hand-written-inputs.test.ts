/**
 * One source of truth per body shape: a service's input type is derived from its typed DTO
 * (`export type XInput = InputOf<typeof XDto>`, api/http/typed-schema.ts), never written again as an
 * `interface XInput`, which the compiler could not hold to the joi schema. This test reads the
 * sources of api/ and fails naming every `interface …Input` that is not in one of the lists below.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');

/** Input types that are not request bodies, so there is no DTO to derive them from. */
const NOT_BODIES: Record<string, string> = {
  'api/http/validation.ts CompiledInput': 'the compiled joi schemas of a route row, not a request value',
  'api/webhooks/verify.ts VerifyWebhookInput':
    "the arguments of the receivers' signature check (raw body, header, secrets), not an HTTP body",
  'api/product-tags/product-tags.service.ts ListProductTagsInput':
    "query parameters gathered by the handler; a route row's query is a map of joi schemas, not a DTO",
  'api/orders/orders.service.ts ListOrdersInput':
    "query parameters gathered by the handler; a route row's query is a map of joi schemas, not a DTO",
  'api/payments/payments.schemas.ts CapturePaymentInput':
    "the capture's query parameter (amount); a route row's query is a map of joi schemas, not a DTO",
  'api/payments/providers/port.ts AuthorizeInput':
    'what the payment-provider port sends a provider (our call to an adapter), not an HTTP body',
  'api/payments/payments.service.ts AuthorizeOrderPaymentInput':
    'the arguments other areas (the storefront checkout, the wallet charge) pass to the payments service, built from their own DTOs',
};

/**
 * Body inputs still written by hand, each to become `InputOf<typeof …Dto>`: none are left. The list only
 * shrinks: an entry that no longer exists fails the test, so it is removed with its migration.
 */
const NOT_YET_DERIVED = new Set<string>([]);

function sources(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sources(rel);
    return entry.name.endsWith('.ts') ? [rel] : [];
  });
}

function inputInterfaces(): string[] {
  return sources('api').flatMap((file) =>
    [...fs.readFileSync(path.join(ROOT, file), 'utf8').matchAll(/\binterface\s+(\w+Input)\b/g)].map((m) => `${file} ${m[1]}`),
  );
}

describe('no hand-written *Input interfaces in api/', () => {
  it('derives every body input from its DTO; only the listed non-bodies are interfaces', () => {
    const found = inputInterfaces();
    const handWritten = found.filter((name) => !(name in NOT_BODIES) && !NOT_YET_DERIVED.has(name));
    expect(handWritten, 'derive these from their DTO: export type XInput = InputOf<typeof XDto>').to.deep.equal([]);
  });

  it('keeps the lists true: every entry still names an interface of the source', () => {
    const found = new Set(inputInterfaces());
    const stale = [...Object.keys(NOT_BODIES), ...NOT_YET_DERIVED].filter((name) => !found.has(name));
    expect(stale, 'remove these entries: the interface is gone').to.deep.equal([]);
  });
});
