/**
 * `cihub pool pairing-pin | pair | peers | approve | reject | unpair | peer-enable |
 * peer-disable | rotate-identity`: pairing from the command line, each a client of this
 * machine's Hub (docs/peer-protocol.md). Reads take --json; changes ask [y/N] first and name
 * what they are about to change, so the question itself is the last chance to compare a key.
 */
import type { PeerView } from '../../peers/peer-view.js';
import type { PoolStatus } from '../../status/pool-status.js';
import { normalizePeerName, otherTailnetProblem } from '../../tailnet/peer-name.js';
import { callHub, CliError, findHub, type HubTarget, UsageError } from '../hub-client.js';
import { step } from '../steps.js';
import { confirm } from '../confirm.js';
import { lineSafe, writeOut } from '../output.js';
import { clockTime, renderPeersTable, shortId } from '../render/peers.js';
import type { CommonOptions } from './pool.js';
import { isAddressTarget, pairByAddress } from './address.js';
import { parseAddressTarget } from '../../tailnet/address-target.js';

export type ChangeOptions = CommonOptions & { readonly yes: boolean; readonly assumeYes: boolean };

const POOL = '/api/inference/pool';
const PIN_FORMAT = /^\d{6}$/;
/** Shortest id prefix the Hub resolves (src/peers/resolve-peer.ts). */
const MIN_ID_PREFIX = 4;

const json = (doc: unknown): string => `${JSON.stringify(doc, null, 2)}\n`;
const text = (lines: readonly string[]): string => `${lines.join('\n')}\n`;

async function selfName(hub: HubTarget): Promise<string | null> {
  return (await callHub<PoolStatus>(hub, 'GET', `${POOL}/status`)).localNode.nodeFqdn;
}

async function listPeers(hub: HubTarget): Promise<PeerView[]> {
  return [...(await callHub<{ peers: PeerView[] }>(hub, 'GET', `${POOL}/peers`)).peers];
}

/**
 * The row an operator means, by the rules the Hub itself applies (full id, node name, then a
 * unique id prefix). Resolved here too so the confirmation can name the peer before anything
 * changes; the change is then sent by full id, so it cannot land on another row.
 */
export function findPeer(peers: readonly PeerView[], ref: string): PeerView {
  const exact = peers.find((p) => p.id === ref);
  if (exact) return exact;
  const name = normalizePeerName(ref);
  if (name.ok) {
    const byName = peers.find((p) => p.nodeFqdn === name.name);
    if (byName) return byName;
  }
  if (ref.length >= MIN_ID_PREFIX) {
    const matches = peers.filter((p) => p.id.startsWith(ref.toLowerCase()));
    if (matches.length === 1) return matches[0]!;
    if (matches.length > 1)
      throw new CliError(
        `${ref} matches ${matches.length} peers (${matches.map((m) => m.nodeFqdn).join(', ')}); give more of the id that \`cihub pool peers\` prints.`,
      );
  }
  throw new CliError(`No peer or pairing request here matches ${ref}; \`cihub pool peers\` lists their ids and names.`);
}

/** The Hub's own words for a refusal, as one sentence (its messages sometimes run to two). */
function oneSentence(message: string): string {
  const joined = message.trim().replace(/\.\s+(?=\S)/g, '; ');
  return /[.!?]$/.test(joined) ? joined : `${joined}.`;
}

const peerPath = (peer: PeerView, verb?: string) => `${POOL}/peers/${encodeURIComponent(peer.id)}${verb ? `/${verb}` : ''}`;

// ---- pairing-pin ----------------------------------------------------------------------------

interface MintedPin {
  readonly pin: string;
  readonly expiresAt: string;
  readonly fingerprint: string;
  readonly nodeFqdn: string | null;
}

export async function pairingPin(opts: ChangeOptions): Promise<string> {
  const hub = findHub(opts.dataDir);
  await confirm('Mint a pairing PIN on this Hub? A PIN minted earlier stops working.', opts);
  const minted = await callHub<MintedPin>(hub, 'POST', `${POOL}/pairing-pin`);
  if (opts.json) return json(minted);
  const name = minted.nodeFqdn ?? "<this Hub's tailnet name>";
  return text([
    `Pairing PIN: ${minted.pin}`,
    '',
    `It works once, until ${clockTime(minted.expiresAt)}; five wrong guesses or a newer PIN end it sooner.`,
    `This Hub: ${name}`,
    `Key fingerprint: ${minted.fingerprint}`,
    ...(minted.nodeFqdn === null
      ? ['(This Hub has no tailnet name yet, so a peer cannot reach it: connect Tailscale with MagicDNS, or set HUB_NODE_FQDN.)']
      : []),
    '',
    'On the other Hub, run:',
    `  cihub pool pair ${name} --pin ${minted.pin}`,
  ]);
}

// ---- pair ----------------------------------------------------------------------------------

interface PairAnswer {
  readonly peer: PeerView | null;
  readonly pinVerified: boolean;
}

export async function pair(opts: ChangeOptions & { name: string; pin?: string | undefined }): Promise<string> {
  const pin = opts.pin;
  if (pin !== undefined && !PIN_FORMAT.test(pin)) {
    throw new UsageError(
      `--pin must be exactly the six digits \`cihub pool pairing-pin\` printed on the other Hub (got ${JSON.stringify(pin.slice(0, 20))}), so nothing was sent.`,
    );
  }
  // Neither a name nor an address (a URL, a path): the command line is wrong, so the Hub is not asked.
  const asName = normalizePeerName(opts.name);
  if (!asName.ok && !parseAddressTarget(opts.name).ok)
    throw new UsageError(`cihub pool pair takes a Hub's tailnet name or its address[:port], and ${asName.reason}; nothing was sent.`);
  const hub = findHub(opts.dataDir);
  // Only a well-formed name needs the suffix to be told from a LAN host name; an IP or a port already says which.
  const tailnetSuffix = asName.ok ? (await callHub<PoolStatus>(hub, 'GET', `${POOL}/status`)).localNode.tailnetSuffix : null;
  if (isAddressTarget(opts.name, tailnetSuffix)) return pairByAddress({ ...opts, address: opts.name, pin, tailnetSuffix }, () => selfName(hub));
  // The Hub would refuse it too, but only after the operator confirmed a request that cannot be sent.
  const elsewhere = otherTailnetProblem(opts.name, tailnetSuffix);
  if (elsewhere !== null) throw new UsageError(`${elsewhere}; nothing was sent.`);
  await confirm(
    pin === undefined
      ? `Send a pairing request to ${opts.name} without a PIN? It carries only this Hub's name, and ${opts.name} still has to approve it.`
      : `Send a pairing request to ${opts.name} with PIN ${pin}? ${opts.name} still has to approve it.`,
    opts,
  );
  let answer: PairAnswer;
  step(`sending the pairing request to ${opts.name} and waiting for its answer`);
  try {
    answer = await callHub<PairAnswer>(hub, 'POST', `${POOL}/peers/pair`, { nodeFqdn: opts.name, ...(pin === undefined ? {} : { pin }) });
  } catch (err) {
    throw pairFailure(err, opts.name, pin !== undefined);
  }
  if (opts.json) return json(answer);
  const peerName = answer.peer?.nodeFqdn ?? opts.name;
  const me = await selfName(hub);
  const pinLine =
    pin === undefined
      ? "No PIN was sent: the request carries only this Hub's name, so its operator should approve only a name they recognise."
      : answer.pinVerified
        ? `PIN verified: ${peerName} accepted it, and this Hub pinned its key${answer.peer?.fingerprint ? ` (fingerprint ${answer.peer.fingerprint})` : ''}.`
        : `PIN not verified: ${peerName} runs the first pool protocol, which ignores PINs, so it did not answer with its identity; keys are exchanged when it approves.`;
  const meName = me ?? "<this Hub's name>";
  return text([
    `Pairing request sent to ${peerName}.`,
    pinLine,
    '',
    `It is not paired yet: ${peerName} has to approve it. On ${peerName}, run:`,
    '  cihub pool peers',
    `  cihub pool approve ${meName}`,
    '',
    `Then \`cihub pool status\` here shows it connected. To withdraw the request: cihub pool unpair ${peerName}`,
    // A request without a PIN is set aside without a word when the receiver already holds a row for this name (spec).
    ...(pin === undefined
      ? [
          '',
          `If \`cihub pool peers\` on ${peerName} does not list this request, ${peerName} already holds a row for this Hub (an old pairing, or a request of its own) and set this one aside.`,
          `Then remove that row there (cihub pool unpair ${meName} on ${peerName}), cancel this one here (cihub pool unpair ${peerName}), and pair again with a PIN, which makes a refusal visible.`,
        ]
      : []),
  ]);
}

function pairFailure(err: unknown, name: string, withPin: boolean): unknown {
  if (!(err instanceof CliError) || err.hub === undefined) return err;
  const { code, message } = err.hub;
  if (code === 'HUB_ERR_PEER_REFUSED_PIN' && withPin) {
    return new CliError(
      `${name} refused the PIN (wrong, expired, already used, replaced by a newer one, or lost when that Hub restarted: a PIN lives in its memory only), so nothing was paired on either side; mint a fresh one there with \`cihub pool pairing-pin\` and pair again.`,
    );
  }
  return message === null ? err : new CliError(`Pairing failed: ${oneSentence(message)}`);
}

// ---- peers ---------------------------------------------------------------------------------

export async function peersList(opts: CommonOptions): Promise<string> {
  const hub = findHub(opts.dataDir);
  const peers = await listPeers(hub);
  if (opts.json) return json({ peers });
  return renderPeersTable(lineSafe(peers), Date.now());
}

// ---- approve / reject ----------------------------------------------------------------------

interface ApproveAnswer {
  readonly peer: PeerView | null;
  readonly callback: 'confirmed' | 'failed';
  readonly reason: string | null;
}

/** What `approve` asks: the requester's name and its key, or that it has none, since this is the last look before trusting it. */
export function approveQuestion(peer: Pick<PeerView, 'nodeFqdn' | 'fingerprint'>): string {
  const key =
    peer.fingerprint === null
      ? 'no key: this request carried no PIN, so its name is only a claim'
      : `key fingerprint ${peer.fingerprint} (compare it with the one \`cihub pool status\` shows on ${peer.nodeFqdn})`;
  return `Approve the pairing request from ${peer.nodeFqdn}? It has ${key}. Once approved, the two Hubs send each other work.`;
}

export async function approve(opts: ChangeOptions & { ref: string }): Promise<string> {
  const hub = findHub(opts.dataDir);
  const peer = findPeer(await listPeers(hub), opts.ref);
  if (peer.direction !== 'inbound' || peer.status !== 'pending') {
    // The sender's operator is the one likely to try: each Hub approves only the requests it received.
    if (peer.direction === 'outbound' && peer.status === 'pending')
      throw new CliError(
        `${peer.nodeFqdn} has no request waiting for this Hub's approval: this Hub sent the request, so an operator on ${peer.nodeFqdn} approves it there.`,
      );
    throw new CliError(
      `${peer.nodeFqdn} has no request waiting for this Hub's approval (its row is ${peer.direction === 'inbound' ? 'in' : 'out'}, ${peer.status}).`,
    );
  }
  await confirm(approveQuestion(peer), opts);
  const result = await callHub<ApproveAnswer>(hub, 'POST', peerPath(peer, 'approve'));
  if (result.callback === 'confirmed') {
    if (opts.json) return json(result);
    return text([
      `Approved ${peer.nodeFqdn}: it confirmed the pairing, so both Hubs list each other as connected.`,
      'The first health check follows within seconds; `cihub pool status` then shows its models.',
    ]);
  }
  // Half paired is no pairing: the steps go to stdout and the command fails (exit 1), as doctor
  // fails this state, so a script approving with --yes cannot read it as done.
  const me = (await selfName(hub)) ?? "<this Hub's name>";
  // A 401 came over HTTPS: the requester was reached and refused the confirmation, most often
  // because it no longer holds the request (cancelled there, which a request without a PIN does
  // not tell this Hub, or expired). Its guard says no more than 401, on purpose.
  const refused = result.reason === 'HTTP 401';
  writeOut(
    opts.json
      ? json(result)
      : text([
          `Approved ${peer.nodeFqdn} here, but the call back to it failed (${result.reason ?? 'no reason given'}).`,
          `Half paired: this Hub lists ${peer.nodeFqdn} as connected while it still waits for approval, and nothing is retried.`,
          refused
            ? `${peer.nodeFqdn} answered and refused the confirmation: it most likely no longer holds this request (cancelled or expired there). Remove both halves and pair again:`
            : `Check that the two Hubs reach each other at https://<its name>, then undo the pairing on both sides and pair again:`,
          `  here:            cihub pool unpair ${peer.nodeFqdn}`,
          `  on ${peer.nodeFqdn}: cihub pool unpair ${me}${refused ? ' (if it still lists this Hub)' : ''}`,
        ]),
  );
  throw new CliError(`${peer.nodeFqdn} is half paired: approved here, but the call back to it failed.`);
}

/** What `reject` asks. Telling the requester is best effort, so the question does not promise it. */
export function rejectQuestion(requester: string): string {
  return `Reject the pairing request from ${requester}? It is removed here, and ${requester} is told if it can be reached.`;
}

export async function reject(opts: ChangeOptions & { ref: string }): Promise<string> {
  const hub = findHub(opts.dataDir);
  const peer = findPeer(await listPeers(hub), opts.ref);
  if (peer.direction !== 'inbound' || peer.status !== 'pending') {
    throw new CliError(
      `${peer.nodeFqdn} has no request waiting for this Hub's approval, so there is nothing to reject; \`cihub pool unpair ${shortId(peer.id)}\` removes its row.`,
    );
  }
  await confirm(rejectQuestion(peer.nodeFqdn), opts);
  const result = await callHub<{ rejected: string; notified: boolean }>(hub, 'POST', peerPath(peer, 'reject'));
  if (opts.json) return json(result);
  if (result.notified) return text([`Rejected the request from ${result.rejected}; it was told and dropped its request too.`]);
  return text([rejectUntold(result.rejected, (await selfName(hub)) ?? "<this Hub's name>")]);
}

/**
 * What `reject` says when the requester could not be told. Whether it still holds anything is
 * unknown here: it may have cancelled the request unseen (a request without a PIN cannot tell
 * this Hub), and an unpair run there then only fails, so the step is given on that condition.
 */
export function rejectUntold(requester: string, me: string): string {
  return `Rejected the request from ${requester} here, but ${requester} could not be told. If it still lists this Hub (\`cihub pool peers\` there), run \`cihub pool unpair ${me}\` on it to drop its side; if not, nothing is left to remove.`;
}

// ---- unpair --------------------------------------------------------------------------------

export async function unpair(opts: ChangeOptions & { ref: string }): Promise<string> {
  const hub = findHub(opts.dataDir);
  const peer = findPeer(await listPeers(hub), opts.ref);
  const cancelling = peer.direction === 'outbound' && peer.status === 'pending';
  const question = cancelling
    ? `Cancel the pairing request this Hub sent to ${peer.nodeFqdn}?`
    : peer.status === 'pending'
      ? `Remove the pending request from ${peer.nodeFqdn}? It is told, as with \`cihub pool reject\`, if it can be reached.`
      : `Unpair ${peer.nodeFqdn}? Both Hubs drop the pairing; pooling with it again takes a new request and approval.`;
  await confirm(question, opts);
  const result = await callHub<{ unpaired: string; notified: boolean }>(hub, 'DELETE', peerPath(peer));
  if (opts.json) return json(result);
  const done = cancelling ? `Cancelled the request to ${result.unpaired}` : `Unpaired ${result.unpaired}`;
  if (result.notified) return text([`${done}; it was told and dropped its half too.`]);
  // A Hub whose identity changed (its data recreated) holds no pairing with this one: nothing to remove there.
  if (peer.probeFailure?.kind === 'identity_changed') {
    return text([
      `${done} here. It was not told: its identity changed, so it no longer holds this pairing and there is nothing to remove on ${result.unpaired}; to pool with it again, pair with a PIN minted there.`,
    ]);
  }
  // Whether it holds anything is unknown here: a request without a PIN may have been set aside
  // there unseen, and an unpair done there first left nothing, where the command would only fail.
  const me = (await selfName(hub)) ?? "<this Hub's name>";
  return text([
    `${done} here, but ${result.unpaired} could not be told. If it still lists this Hub (\`cihub pool peers\` there), run \`cihub pool unpair ${me}\` on it too; if not, nothing is left to remove.`,
  ]);
}

// ---- peer-enable / peer-disable ------------------------------------------------------------

export async function peerSwitch(enabled: boolean, opts: ChangeOptions & { ref: string }): Promise<string> {
  const hub = findHub(opts.dataDir);
  const peer = findPeer(await listPeers(hub), opts.ref);
  await confirm(
    enabled
      ? `Enable ${peer.nodeFqdn}? Work flows between it and this Hub again.`
      : `Disable ${peer.nodeFqdn}? The pairing and its health checks stay, but no work goes to it or comes from it.`,
    opts,
  );
  const result = await callHub<{ peer: PeerView | null }>(hub, 'POST', peerPath(peer, enabled ? 'enable' : 'disable'));
  if (opts.json) return json(result);
  return text([
    enabled
      ? `${peer.nodeFqdn} is enabled: work can flow between it and this Hub again.`
      : `${peer.nodeFqdn} is disabled: it stays paired and probed, but no work goes to it or comes from it (\`cihub pool peer-enable ${shortId(peer.id)}\` undoes this).`,
  ]);
}

// ---- rotate-identity -----------------------------------------------------------------------

interface RotateAnswer {
  readonly nodeUuid: string;
  readonly fingerprint: string | null;
  readonly identityError: string | null;
  readonly unpaired: readonly string[];
  readonly notReached: readonly string[];
}

export async function rotateIdentity(opts: ChangeOptions): Promise<string> {
  const hub = findHub(opts.dataDir);
  const peers = await listPeers(hub);
  const affected =
    peers.length === 0
      ? 'No peer is paired now.'
      : `This removes every pairing and request (${peers.map((p) => p.nodeFqdn).join(', ')}); each is told if it can be reached, and pooling with them again takes a new pairing.`;
  await confirm(`Rotate this Hub's pool identity to a new key? ${affected}`, opts);
  const result = await callHub<RotateAnswer>(hub, 'POST', `${POOL}/identity/rotate`);
  if (opts.json) return json(result);
  if (result.fingerprint === null) {
    throw new CliError(
      `The identity was rotated but the new key cannot be used either (${result.identityError ?? 'no reason given'}), and every pairing was removed.`,
    );
  }
  const me = (await selfName(hub)) ?? "<this Hub's name>";
  const lines = [`New key fingerprint: ${result.fingerprint} (node UUID unchanged: ${result.nodeUuid}).`];
  lines.push(
    result.unpaired.length === 0
      ? 'No pairing had to be removed.'
      : `Removed ${result.unpaired.length === 1 ? 'the pairing' : 'every pairing'}: ${result.unpaired.join(', ')}.`,
  );
  if (result.notReached.length > 0) lines.push(rotationNotReached(result.notReached, me));
  return text(lines);
}

/**
 * What rotation says of peers it could not tell. Each likely still pins the old key, but may have
 * unpaired unseen, and an unpair run there then only fails, so the step is given on that condition.
 */
export function rotationNotReached(notReached: readonly string[], me: string): string {
  const where = notReached.length === 1 ? 'it, if it still lists this Hub' : 'each that still lists this Hub';
  return `Could not tell ${notReached.join(', ')}: on ${where} (\`cihub pool peers\` there), run \`cihub pool unpair ${me}\` before pairing again.`;
}
