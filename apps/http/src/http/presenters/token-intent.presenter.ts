import type { TokenIntentView } from '@svc/core';

/** A token intent as the API shows it (Basis Theory's shape): the card's bin and last 4, never its number or cvc. */
export function presentTokenIntent(view: TokenIntentView) {
  const { card, bank } = view;
  return {
    id: view.id,
    type: view.type,
    tenant_id: view.tenantId,
    fingerprint: view.fingerprint,
    created_by: view.createdBy,
    created_at: view.createdAt.toISOString(),
    expires_at: view.expiresAt.toISOString(),
    ...(card
      ? {
          card: {
            bin: card.bin,
            last4: card.last4,
            expiration_month: card.expirationMonth,
            expiration_year: card.expirationYear,
            brand: card.brand,
            funding: card.funding,
          },
        }
      : {}),
    ...(bank ? { bank: { routing_number: bank.routingNumber, account_number_last4: bank.accountNumberLast4 } } : {}),
  };
}
