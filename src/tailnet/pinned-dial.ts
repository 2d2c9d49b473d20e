/**
 * Dialling only where the address check said (spec: "Finding a peer by address": the check is
 * re-run before the pairing request, the call that carries a credential out). The check and
 * the connection share one resolution: a connection asks its lookup for an address, and these
 * lookups answer only addresses that passed, so a name whose DNS answer changes between the
 * check and the connect (rebinding) cannot reach anything the check refused.
 */
import type { LookupAddress, LookupOneOptions, LookupAllOptions } from 'node:dns';
import { Agent } from '../util/undici-lean.js';
import { checkPoolTarget, type ResolvedAddress, type Resolver } from './private-address.js';

/** The code a refused dial fails with; its message is the refusal, ready for an operator. */
export const POOL_ADDRESS_REFUSED = 'EPOOLADDRESSREFUSED';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
type Lookup = (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback) => void;

function refused(reason: string): NodeJS.ErrnoException {
  return Object.assign(new Error(reason), { code: POOL_ADDRESS_REFUSED });
}

function answer(addresses: readonly ResolvedAddress[], options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void {
  if ((options as LookupAllOptions).all === true)
    callback(
      null,
      addresses.map((a) => ({ address: a.address, family: a.family })),
    );
  else callback(null, addresses[0]!.address, addresses[0]!.family);
}

/** Answers exactly these (already checked) addresses, whatever name is asked for. */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): Lookup {
  return (_hostname, options, callback) => answer(addresses, options, callback);
}

/** Resolves, checks every address, and answers the checked ones, or fails the connect with the reason. */
export function checkingLookup(resolve: Resolver): Lookup {
  return (hostname, options, callback) => {
    checkPoolTarget(hostname, resolve).then(
      (check) => (check.ok ? answer(check.addresses, options, callback) : callback(refused(check.reason), '')),
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}

/** One connection's dispatcher, pinned to checked addresses; close it after the call. */
export function pinnedAgent(addresses: readonly ResolvedAddress[]): Agent {
  return new Agent({ connect: { lookup: pinnedLookup(addresses) } });
}

/** A long-lived dispatcher for peer names: every new connection is checked as it is made. */
export function privateOnlyAgent(resolve: Resolver, keepAliveTimeoutMs: number): Agent {
  return new Agent({ keepAliveTimeout: keepAliveTimeoutMs, connect: { lookup: checkingLookup(resolve) } });
}
