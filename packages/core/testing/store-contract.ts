import type { Store } from '../src/shared/store';
import { anApplication } from './builders';
import { describeApplicationContract } from './contracts/applications.contract';
import { describeApplicationKeyContract } from './contracts/application-keys.contract';
import { describeDirectoryContract } from './contracts/directory.contract';
import { describeTokenContract } from './contracts/tokens.contract';
import { describeSearchContract } from './contracts/search.contract';
import { describeTokenKeysetContract } from './contracts/token-keyset.contract';
import { describeSessionContract } from './contracts/sessions.contract';
import { describeInvitationContract } from './contracts/invitations.contract';
import { describeTokenIntentContract } from './contracts/token-intents.contract';
import { describeIdempotencyContract } from './contracts/idempotency.contract';
import { describeWebhookContract } from './contracts/webhooks.contract';
import { describeAuditLogContract } from './contracts/audit-log.contract';
import { describeWriteEffectsContract } from './contracts/write-effects.contract';
import { describeWebhookDeliveryContract } from './contracts/webhook-deliveries.contract';
import { describePingContract } from './contracts/ping.contract';
import { describeProxyContract } from './contracts/proxies.contract';

/** Opens a fresh, empty store for one test; the suite closes it. */
export type StoreFactory = () => Promise<Store>;

/**
 * The one behavioural contract every store adapter must pass. Run it from the adapter's own tests:
 * `describeStoreContract('sqlite', () => openSqliteStore({ file }))`.
 */
export function describeStoreContract(name: string, open: StoreFactory): void {
  describe(`${name} store contract`, () => {
    describeDirectoryContract(open);
    describeApplicationContract(open);
    describeApplicationKeyContract(open);
    describeTokenContract(open);
    describeSearchContract(open);
    describeTokenKeysetContract(open);
    describeSessionContract(open);
    describeInvitationContract(open);
    describeTokenIntentContract(open);
    describeIdempotencyContract(open);
    describeWebhookContract(open);
    describeAuditLogContract(open);
    describeWriteEffectsContract(open);
    describeWebhookDeliveryContract(open);
    describePingContract(open);
    describeProxyContract(open);
  });
}

export { anApplication };
