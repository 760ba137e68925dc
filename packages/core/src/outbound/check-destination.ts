import type { HostResolver } from './host-resolver';
import { classifyAddress } from './ip-address';
import type { OutboundDecision, OutboundPolicy, OutboundTarget } from './outbound-policy';

/**
 * A destination URL judged as a connection to it would be, before anything is sent: the policy's URL checks, then
 * every address its host name resolves to (one the policy refuses refuses the URL). A name SVC_OUTBOUND_ALLOW lists
 * is not looked up. A name that does not resolve (now) passes: it may be created in DNS later, and every connection
 * resolves and checks it again, so nothing is ever sent to an address the policy refuses.
 */
export async function checkDestination(policy: OutboundPolicy, resolver: HostResolver, url: string): Promise<OutboundDecision<OutboundTarget>> {
  const decision = policy.checkUrl(url);
  if (!decision.allowed || decision.value.allowListed || classifyAddress(decision.value.host) !== undefined) return decision;
  const lookup = await resolver.resolve(decision.value.host);
  if (lookup.kind === 'unresolved') return decision;
  for (const address of lookup.addresses) {
    const checked = policy.checkAddress(decision.value, address);
    if (!checked.allowed) return { allowed: false, reason: checked.reason.replace(/^points to/, 'resolves to') };
  }
  return decision;
}
