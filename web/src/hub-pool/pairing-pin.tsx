import { useEffect, useState } from 'react';
import { api, POOL } from '../api';
import { notSentAdvice, notSentDetail, notSentTitle, pinProblem, sendPairRequest } from '../actions';
import { useDashboard } from '../context';
import { useNow } from '../hooks';
import type { PoolStatus } from '../types';
import type { Act, Say } from './act';
import { Beside, useBeside } from './beside';
import { Section } from './section';
import { ChangeButton, useWorking } from './working';

export interface PinField {
  readonly otherPin: string;
  setOtherPin(pin: string): void;
}

export function PairingPin({
  s,
  receivedAt,
  act,
  refresh,
  otherPin,
  setOtherPin,
}: { s: PoolStatus; receivedAt: number | null; act: Act; refresh: () => Promise<void> } & PinField) {
  const { readOnly } = useDashboard();
  const now = useNow();
  const [minted, setMinted] = useState<{ pin: string; expiresAt: string } | null>(null);
  const [name, setName] = useState('');
  // A request can take up to 10 s to be answered: meanwhile Pair says so and cannot send it twice.
  const [sending, setSending] = useState(false);
  const beside = useBeside();
  const working = useWorking();
  // The status decides whether a PIN is live: one spent by a request, cancelled or replaced from
  // the CLI is gone there, whatever this page minted. The digits show only for the PIN status names.
  // The countdown runs from the time the Hub said was left, from when its answer arrived:
  // expiresAt read by this browser's clock is off by however far the two clocks disagree, and
  // the next status read may be 15 s away when the PIN lapses.
  const deadline = s.pairingPin.expiresInMs === null || receivedAt === null ? null : receivedAt + s.pairingPin.expiresInMs;
  const left = deadline === null ? 0 : Math.max(0, deadline - now);
  const live = s.pairingPin.active && left > 0;
  const shown = minted !== null && live && s.pairingPin.expiresAt === minted.expiresAt ? minted : null;
  const problem = pinProblem(otherPin);
  useEffect(() => {
    if (minted !== null && left === 0) setMinted(null);
  }, [minted, left]);
  // "PIN generated" speaks of a PIN that is live: once it is spent, cancelled elsewhere or expired,
  // the card says no PIN is active and the message would contradict it.
  // forget is remade each render, to the same effect, so it is left out of the effects' dependencies.
  const { forget } = beside;
  useEffect(() => {
    if (!live) forget('generate');
  }, [live]);
  // The request the last Pair sent, and whether status has listed it waiting: "listed under Pending
  // requests" holds only until it is approved, rejected, cancelled or expires.
  const [sentTo, setSentTo] = useState<{ readonly name: string; readonly seen: boolean } | null>(null);
  const waiting = sentTo !== null && s.peers.some((p) => p.nodeFqdn === sentTo.name && p.direction === 'outbound' && p.status === 'pending');
  useEffect(() => {
    if (sentTo === null) return;
    if (waiting) {
      if (!sentTo.seen) setSentTo({ name: sentTo.name, seen: true });
    } else if (sentTo.seen) {
      forget('pair');
      setSentTo(null);
    }
  }, [sentTo, waiting]);

  const pair = async () => {
    if (sending) return;
    // The last request's outcome would otherwise stand for this one until its answer comes (up to 10 s).
    beside.forget('pair');
    setSentTo(null);
    const to = name.trim();
    setSending(true);
    const outcome = await sendPairRequest(to, otherPin);
    setSending(false);
    if (outcome.sent) {
      setName('');
      setOtherPin('');
      setSentTo({ name: outcome.peer?.nodeFqdn ?? to, seen: false });
    }
    // As with every change here: with no answer from this Hub, the read after it would wait out its own bound too, holding back what there is to say.
    const reread = refresh();
    if (outcome.sent || !outcome.unanswered) await reread;
    beside.say('pair')(
      outcome.sent
        ? { tone: 'good', text: `Pairing request sent to ${to}. It is listed under Pending requests until that Hub approves it.` }
        : { tone: 'bad', text: `${notSentTitle(outcome)}. ${notSentAdvice(outcome)}`, detail: notSentDetail(outcome) },
    );
  };
  // Generate and Cancel answer under their buttons; either gives way to the other's next answer.
  const pinSay = (key: 'generate' | 'cancel'): Say => {
    beside.forget(key === 'generate' ? 'cancel' : 'generate');
    return beside.say(key);
  };

  return (
    <Section id="pairing-pin" title="Pairing PIN">
      <p className="small muted">
        A PIN proves the request comes from someone in front of this Hub's screen. It works once, for ten minutes; generating another replaces it, and five
        wrong guesses destroy it.
      </p>
      {shown !== null ? (
        <div>
          {/* A label on a div with no role is not read, so a screen reader said the digits as one
              number ("four hundred twelve thousand…"): it reads the hidden text, digit by digit. */}
          <p className="visually-hidden" data-testid="pin-spoken">
            PIN {shown.pin.split('').join(' ')}
          </p>
          <div className="pin-digits mono" data-testid="pin-digits" aria-hidden="true">
            {shown.pin}
          </div>
          <p role="timer" aria-live="off">
            Expires in {Math.floor(left / 60000)}:{String(Math.floor((left % 60000) / 1000)).padStart(2, '0')}
          </p>
        </div>
      ) : live ? (
        <p>A PIN is active until {new Date(deadline!).toLocaleTimeString()}. Its digits were shown once, when it was made.</p>
      ) : (
        <p className="muted">No PIN is active.</p>
      )}
      <p className="small">
        This node's key fingerprint: <span className="mono">{s.localNode.identity?.fingerprint ?? '—'}</span>
      </p>
      {!readOnly && (
        <>
          <div className="row">
            <ChangeButton
              working={working.has('generate')}
              className="primary"
              disabled={!s.enabled}
              aria-describedby={beside.said('generate') !== null ? 'pin-generate-said' : undefined}
              onClick={() =>
                void working.run('generate', () =>
                  act(
                    async () => {
                      const res = await api<{ pin: string; expiresAt: string }>('POST', `${POOL}/pairing-pin`);
                      // Status first, so the digits never show beside a status that has not seen the PIN yet.
                      await refresh();
                      setMinted({ pin: res.pin, expiresAt: res.expiresAt });
                    },
                    'PIN generated. Type it on the other Hub within ten minutes.',
                    pinSay('generate'),
                  ),
                )
              }
            >
              Generate PIN
            </ChangeButton>
            {live && (
              <ChangeButton
                working={working.has('cancel')}
                aria-describedby={beside.said('cancel') !== null ? 'pin-cancel-said' : undefined}
                onClick={() =>
                  void working.run('cancel', () =>
                    act(
                      async () => {
                        await api('DELETE', `${POOL}/pairing-pin`);
                        setMinted(null);
                      },
                      'PIN cancelled.',
                      pinSay('cancel'),
                    ),
                  )
                }
              >
                Cancel PIN
              </ChangeButton>
            )}
          </div>
          <Beside id="pin-generate-said" outcome={beside.said('generate')} refused="No PIN made" testId="pin-card-said" />
          <Beside id="pin-cancel-said" outcome={beside.said('cancel')} refused="PIN not cancelled" testId="pin-card-said" />
          {!s.enabled && <p className="small muted">Hub Pool is off here, so it takes no pairing requests and cannot make a PIN.</p>}
          <h3 style={{ marginTop: '1rem' }}>Send a request</h3>
          <div className="field">
            <label htmlFor="pair-name">Other Hub's tailnet name</label>
            <input
              id="pair-name"
              type="text"
              className="mono"
              placeholder="hub-b.example-tailnet.ts.net"
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor="other-pin">PIN from the other Hub (optional)</label>
            <input
              id="other-pin"
              type="text"
              inputMode="numeric"
              autoComplete="off"
              maxLength={6}
              value={otherPin}
              onChange={(e) => setOtherPin(e.target.value.replace(/\D/g, ''))}
              aria-invalid={problem !== null}
              aria-describedby="other-pin-help"
            />
            <span id="other-pin-help" className={`small ${problem !== null ? '' : 'muted'}`}>
              {problem ?? 'Six digits, made under Pairing PIN on the other Hub. Without one, the request carries only this Hub’s name.'}
            </span>
          </div>
          <button
            type="button"
            disabled={name.trim() === '' || problem !== null}
            // Not disabled while sending: a disabled button drops the keyboard's focus to the page.
            aria-disabled={sending || undefined}
            aria-describedby={beside.said('pair') !== null ? 'pair-said' : undefined}
            onClick={() => void pair()}
          >
            {sending ? 'Sending…' : 'Pair'}
          </button>
          <Beside id="pair-said" outcome={beside.said('pair')} testId="pair-said" />
        </>
      )}
    </Section>
  );
}
