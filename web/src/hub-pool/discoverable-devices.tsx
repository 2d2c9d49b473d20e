import { useEffect, useState } from 'react';
import { hubName, notSentAdvice, notSentDetail, notSentTitle, pinProblem, scanForHubs, sendPairRequest, type Discovery } from '../actions';
import { useDashboard } from '../context';
import { DirectoryNotes } from '../DirectoryNotes';
import type { DiscoverableHub, PoolStatus } from '../types';
import { Beside, useBeside } from './beside';
import type { PinField } from './pairing-pin';
import { Section } from './section';

export function DiscoverableDevices({ s, refresh, otherPin, setOtherPin }: { s: PoolStatus; refresh: () => Promise<void> } & PinField) {
  const { readOnly } = useDashboard();
  // Each Pair's outcome is said in its device's row.
  const beside = useBeside();
  // Devices whose request is still unanswered (up to 10 s): their Pair says so and cannot send it twice.
  const [sending, setSending] = useState<ReadonlySet<string>>(new Set());
  const sendingTo = (fqdn: string, on: boolean) => setSending((all) => new Set(on ? [...all, fqdn] : [...all].filter((f) => f !== fqdn)));
  const pinRefused = pinProblem(otherPin) !== null;
  const [scan, setScan] = useState<Discovery | null>(null);
  const [scanning, setScanning] = useState(false);
  const run = async () => {
    setScanning(true);
    setScan(await scanForHubs());
    setScanning(false);
  };
  useEffect(() => {
    if (!readOnly) void run();
  }, [readOnly]);
  if (readOnly) return null;
  // Whatever the scan listed: rows heard on the LAN, or tailnet rows from this machine's own
  // Tailscale, say nothing about the devices only the Admin API would name, so the way to add
  // them stays in view as long as the Hub has no OAuth client, not only beside an empty list.
  const credentialHint = scan?.available === true && !s.tailscaleAdminApiConfigured;
  // A Hub this one already holds a row for (a request either way, or a pairing) is no longer
  // offered: its Pair could only meet this Hub's own refusal. Its last Pair's outcome stays where the row stood.
  const held = new Set(s.peers.map((p) => p.nodeFqdn));
  const listed = (h: DiscoverableHub): boolean => !held.has(h.nodeFqdn) || sending.has(h.nodeFqdn);
  const rows =
    scan?.available !== true
      ? []
      : scan.hubs.flatMap((h, at) => {
          const saidId = `discoverable-said-${at}`;
          const said = beside.said(h.nodeFqdn);
          if (!listed(h))
            return said === null
              ? []
              : [
                  <li key={h.nodeFqdn}>
                    <Beside id={saidId} outcome={said} testId="discoverable-said" />
                  </li>,
                ];
          return [
            <li key={h.nodeFqdn}>
              <div className="row">
                <span title={h.nodeFqdn}>{hubName(h)}</span>
                {h.unverified === true ? (
                  <span className="tag">Unverified</span>
                ) : (
                  <button
                    type="button"
                    aria-label={sending.has(h.nodeFqdn) ? `Sending a request to ${h.nodeFqdn}` : `Pair with ${h.nodeFqdn}`}
                    aria-describedby={said !== null ? saidId : undefined}
                    disabled={pinRefused}
                    // Not disabled while sending: a disabled button drops the keyboard's focus to the page.
                    aria-disabled={sending.has(h.nodeFqdn) || undefined}
                    title={pinRefused ? 'The PIN typed under Pairing PIN is not six digits' : undefined}
                    onClick={async () => {
                      if (sending.has(h.nodeFqdn)) return;
                      // The PIN typed under Pairing PIN goes with it, as with that section's Pair.
                      const withPin = otherPin.trim() !== '';
                      // The last request's outcome would otherwise stand for this one until its answer comes.
                      beside.forget(h.nodeFqdn);
                      sendingTo(h.nodeFqdn, true);
                      const o = await sendPairRequest(h.nodeFqdn, otherPin);
                      sendingTo(h.nodeFqdn, false);
                      if (o.sent && withPin) setOtherPin('');
                      // With no answer from this Hub the read would wait out its own bound too, holding back the answer.
                      const reread = refresh();
                      if (o.sent || !o.unanswered) await reread;
                      beside.say(h.nodeFqdn)(
                        o.sent
                          ? { tone: 'good', text: `Pairing request sent to ${h.nodeFqdn}${withPin ? ' with the PIN' : ''}.` }
                          : { tone: 'bad', text: `${notSentTitle(o)}. ${notSentAdvice(o)}`, detail: notSentDetail(o) },
                      );
                    }}
                  >
                    {sending.has(h.nodeFqdn) ? 'Sending…' : 'Pair'}
                  </button>
                )}
              </div>
              <Beside id={saidId} outcome={said} testId="discoverable-said" />
            </li>,
          ];
        });
  return (
    <Section id="discoverable" title="Discoverable devices">
      <div className="row">
        <button type="button" onClick={() => void run()} disabled={scanning}>
          {scanning ? 'Scanning…' : 'Rescan'}
        </button>
        <span className="small muted">
          Scans when this page opens and on Rescan, never on a timer, since a scan reaches out to every tailnet device not yet paired. Pair sends the PIN typed
          under Pairing PIN, if any.
        </span>
      </div>
      {scan === null ? null : !scan.available ? (
        <p className="notice" data-testid="discovery-unavailable">
          {scan.why}
        </p>
      ) : (
        <>
          {!scan.hubs.some(listed) && (
            <div className="notice" data-testid="discovery-empty">
              {scan.hubs.length === 0 ? (
                <p>No unpaired Hubs found.</p>
              ) : (
                <p>Every Hub the last scan found is now paired with this Hub or has a request under Pending requests.</p>
              )}
              <DirectoryNotes directories={scan.directories} credentialHintShown={credentialHint} />
            </div>
          )}
          {rows.length > 0 && <ul className="plain">{rows}</ul>}
        </>
      )}
      {credentialHint && (
        <p className="small" data-testid="oauth-hint">
          To list every device on your tailnet, set TAILSCALE_OAUTH_CLIENT_ID and TAILSCALE_OAUTH_CLIENT_SECRET in the Hub's .env.
        </p>
      )}
    </Section>
  );
}
