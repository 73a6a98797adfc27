/**
 * Merchant wallets (docs/checkout.md, "Wallets"): a store's configuration of the wallet provider
 * (enabled, display name, domains, card networks), the domain association file the provider fetches
 * from each domain, and verifying the domains.
 *
 * The association content is generated once per store (random, kept across updates) when the
 * configuration is first saved. Verifying fetches `<verifyBaseUrl>/.well-known/<file>` for every domain
 * through the SSRF-safe fetch and records VERIFIED (the content matches exactly, surrounding whitespace
 * aside) or FAILED with the reason. Every write is audited.
 */
import { randomBytes } from 'node:crypto';
import { WalletConfig, WalletDomainVerification } from '../../storage/entities';
import { recordAudit } from '../../storage/audit';
import { uuidv7 } from '../../storage/ids';
import { inTransaction, servicesOf, type RequestContext } from '../../storage/request-context';
import { tenantRepository } from '../../storage/tenancy';
import { requireStore } from '../../domain/store-access';
import { safeFetch, SafeFetchError } from '../../lib/safe-fetch';
import type { InputOf } from '../http/typed-schema';
import { checkoutError } from '../checkout/checkout.errors';
import type { WalletConfigUpsertDto, WalletProvider } from './wallets.schemas';

/** Where a domain serves the association file. */
export const ASSOCIATION_PATH = '/.well-known/wallet-pay-domain-association';
const VERIFY_TIMEOUT_MS = 5_000;
const ASSOCIATION_MAX_BYTES = 16 * 1024;

export type WalletConfigInput = InputOf<typeof WalletConfigUpsertDto>;

export interface WalletConfigView {
  storeId: string;
  provider: WalletProvider;
  configured: boolean;
  enabled: boolean;
  displayName: string | null;
  domains: Array<{ domain: string; verification: { status: 'VERIFIED' | 'FAILED'; reason: string | null; checkedAt: string } | null }>;
  supportedNetworks: string[];
  domainAssociation: { path: string; url: string; content: string } | null;
  updatedAt: string | null;
}

export const associationUrl = (ctx: RequestContext, storeId: string): string =>
  `${servicesOf(ctx).config.publicBaseUrl}/api/v1/storefront/checkout/wallet/wallet-pay/${storeId}/domain-association`;

async function view(ctx: RequestContext, storeId: string, row: WalletConfig | null): Promise<WalletConfigView> {
  if (!row)
    return {
      storeId,
      provider: 'wallet-pay',
      configured: false,
      enabled: false,
      displayName: null,
      domains: [],
      supportedNetworks: [],
      domainAssociation: null,
      updatedAt: null,
    };
  const latest: Array<{ domain: string; status: 'VERIFIED' | 'FAILED'; reason: string | null; checked_at: Date }> = row.domains.length
    ? await ctx.manager.query(
        `SELECT DISTINCT ON (domain) domain, status, reason, checked_at FROM wallet_domain_verifications
          WHERE tenant_id = $1 AND store_id = $2 AND provider = $3 AND domain = ANY($4::text[])
          ORDER BY domain, checked_at DESC, id DESC`,
        [row.tenantId, storeId, row.provider, row.domains],
      )
    : [];
  return {
    storeId,
    provider: row.provider as WalletProvider,
    configured: true,
    enabled: row.enabled,
    displayName: row.displayName,
    domains: row.domains.map((domain) => {
      const v = latest.find((l) => l.domain === domain);
      return { domain, verification: v ? { status: v.status, reason: v.reason, checkedAt: new Date(v.checked_at).toISOString() } : null };
    }),
    supportedNetworks: row.supportedNetworks,
    domainAssociation: { path: ASSOCIATION_PATH, url: associationUrl(ctx, storeId), content: row.associationContent },
    updatedAt: row.updatedAt.toISOString(),
  };
}

export async function getWalletConfig(ctx: RequestContext, storeId: string): Promise<WalletConfigView> {
  const store = await requireStore(ctx, storeId);
  return view(ctx, store.id, await tenantRepository(ctx, WalletConfig).findOneBy({ storeId: store.id, provider: 'wallet-pay' }));
}

/** A new association file: the provider's marker line, the store and 32 random bytes. */
const newAssociation = (storeId: string): string =>
  `wallet-pay-domain-association:v1\nmerchant:${storeId}\nkey:${randomBytes(32).toString('hex')}\n`;

export async function upsertWalletConfig(ctx: RequestContext, input: WalletConfigInput): Promise<WalletConfigView> {
  return inTransaction(ctx, async (tx) => {
    const store = await requireStore(tx, input.storeId, { forWrite: true, lock: true });
    const repo = tenantRepository(tx, WalletConfig);
    const existing = await repo.findOneBy({ storeId: store.id, provider: input.provider });
    const fields = {
      enabled: input.enabled,
      displayName: input.displayName,
      domains: input.domains,
      supportedNetworks: input.supportedNetworks,
    };
    if (
      existing &&
      JSON.stringify({ e: existing.enabled, n: existing.displayName, d: existing.domains, s: existing.supportedNetworks }) ===
        JSON.stringify({ e: fields.enabled, n: fields.displayName, d: fields.domains, s: fields.supportedNetworks })
    )
      return view(tx, store.id, existing);
    const now = new Date();
    const row = repo.create({
      ...fields,
      storeId: store.id,
      provider: input.provider,
      associationContent: existing?.associationContent ?? newAssociation(store.id),
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    });
    if (existing) await repo.update({ storeId: store.id, provider: input.provider }, { ...fields, updatedAt: now });
    else await tx.manager.insert(WalletConfig, row);
    await recordAudit(tx, {
      action: existing ? 'wallet_config.update' : 'wallet_config.create',
      resourceType: 'wallet_config',
      resourceId: store.id,
      before: existing
        ? {
            provider: existing.provider,
            enabled: existing.enabled,
            displayName: existing.displayName,
            domains: existing.domains,
            supportedNetworks: existing.supportedNetworks,
          }
        : null,
      after: { provider: input.provider, ...fields },
    });
    return view(tx, store.id, row);
  });
}

/** Why a fetched association file does not verify the domain, or null when it does. */
async function checkDomain(ctx: RequestContext, domain: string, expected: string): Promise<string | null> {
  const { config } = servicesOf(ctx);
  const url = `${config.wallets.verifyBaseUrl.replace('{domain}', domain)}${ASSOCIATION_PATH}`;
  try {
    const result = await safeFetch(url, {
      timeoutMs: VERIFY_TIMEOUT_MS,
      maxBytes: ASSOCIATION_MAX_BYTES,
      maxRedirects: 0,
      allowAddresses: config.nodeEnv === 'test' ? config.wallets.allowAddresses : [],
      accept: 'text/plain',
      userAgent: 'commerce-wallet-verifier/1.0',
    });
    return result.body.toString('utf8').trim() === expected.trim()
      ? null
      : "content_mismatch: the file does not hold this store's association content";
  } catch (error) {
    if (error instanceof SafeFetchError) return `${error.reason}: ${error.message}`;
    throw error;
  }
}

/** Verifies every configured domain now and records each outcome. */
export async function verifyWalletDomains(ctx: RequestContext, storeId: string): Promise<WalletConfigView> {
  const store = await requireStore(ctx, storeId, { forWrite: true });
  const row = await tenantRepository(ctx, WalletConfig).findOneBy({ storeId: store.id, provider: 'wallet-pay' });
  if (!row)
    throw checkoutError('wallet_not_configured', 'The store has no wallet-pay configuration; save one first (PUT /merchant-wallets).');
  if (row.domains.length === 0) throw checkoutError('wallet_no_domains', 'The wallet configuration names no domain to verify.');
  // Fetched outside the transaction: no row is locked while a remote server answers.
  const outcomes = await Promise.all(
    row.domains.map(async (domain) => ({ domain, reason: await checkDomain(ctx, domain, row.associationContent) })),
  );
  return inTransaction(ctx, async (tx) => {
    const now = new Date();
    for (const { domain, reason } of outcomes) {
      await tx.manager.insert(WalletDomainVerification, {
        id: uuidv7(),
        tenantId: row.tenantId,
        storeId: store.id,
        provider: row.provider,
        domain,
        status: reason === null ? 'VERIFIED' : 'FAILED',
        reason: reason?.slice(0, 500) ?? null,
        checkedAt: now,
      });
    }
    await recordAudit(tx, {
      action: 'wallet_config.verify_domains',
      resourceType: 'wallet_config',
      resourceId: store.id,
      after: {
        provider: row.provider,
        results: outcomes.map((o) => ({ domain: o.domain, status: o.reason === null ? 'VERIFIED' : 'FAILED', reason: o.reason })),
      },
    });
    return view(tx, store.id, row);
  });
}

/** The association file of a store, for the public route: 404 when the store has none or the wallet is disabled. */
export async function domainAssociation(ctx: RequestContext, storeId: string): Promise<string> {
  const rows: Array<{ association_content: string }> = await ctx.manager.query(
    `SELECT w.association_content FROM wallet_configs w JOIN stores s ON s.id = w.store_id
      WHERE w.store_id = $1 AND w.provider = 'wallet-pay' AND w.enabled AND s.status = 'active'`,
    [storeId],
  );
  if (!rows[0]) throw checkoutError('wallet_not_configured', 'The store does not offer wallet-pay.');
  return rows[0].association_content;
}
