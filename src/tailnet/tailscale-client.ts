/**
 * What the Hub asks the local Tailscale daemon, through the `tailscale` CLI (the one seam in
 * tailscale-exec.ts): its status and peer map (cached 30 s, so polled routes stay cheap and a
 * burst of callers spawns one process), whether Serve publishes the Hub, whether Tailscale
 * accepts changes from the account the Hub runs as, and publishing the Hub with Serve.
 * Nothing here throws: a failed read is "not connected" or "unknown".
 */
import type { Logger } from 'pino';
import { elapsedMs, type Clock } from '../util/clock.js';
import type { TailscaleRunner } from './tailscale-exec.js';
import { isPermissionRefusal, operatorCommand, parseServeConfig, publishArgs, publishCommand, reachableFromLoopback, serveVerdict } from './tailscale-serve.js';
import { readTailscaleStatus, runProblem, type TailscaleCaller, type TailscaleState } from './tailscale-status.js';

/** How long one status reading is reused (spec: the pool status route reads a 30 s-cached status). */
export const TAILSCALE_STATUS_TTL_MS = 30_000;

/** Whether Serve publishes https://<name>/ to the Hub's port. */
export interface ServeState {
  /** publishes; absent: nothing at https://<name>/; other: something else is served there; unknown: could not read. */
  readonly verdict: 'publishes' | 'absent' | 'other' | 'unknown';
  /** What is served there instead (verdict other); otherwise null. */
  readonly otherTarget: string | null;
  /** Why it is unknown, in words; null otherwise. */
  readonly problem: string | null;
  /** The address the Hub listens on (HUB_HOST, --host). */
  readonly hubHost: string;
  /**
   * Whether that address takes connections at 127.0.0.1, where the Hub publishes itself. False
   * (::1, 127.0.0.2, a LAN address) means the Hub publishes nothing; an entry made by hand that
   * reaches it another way (http://[::1]:<port> for ::1) still reads as publishes.
   */
  readonly reachableFromLoopback: boolean;
}

/** Whether Tailscale takes changes (Serve above all) from the account the Hub runs as. */
export interface OperatorState {
  /** true: root or the operator; false: refused or another operator is set; null: cannot tell. */
  readonly allowed: boolean | null;
  /** The host account the Hub runs as. */
  readonly account: string;
  /** Tailscale's OperatorUser setting; null when unset or unreadable. */
  readonly operatorUser: string | null;
  /** The one-time command that allows it; null when allowed. */
  readonly command: string | null;
  /** How the verdict was reached, in words. */
  readonly basis: string;
}

export type PublishOutcome =
  | { readonly kind: 'already' }
  | { readonly kind: 'published' }
  /** Something else is served at https://<name>/: the Hub leaves it alone and says what to run. */
  | { readonly kind: 'conflict'; readonly otherTarget: string; readonly command: string }
  /** Tailscale refused because of who asked; `command` lets the Hub's account make the change. */
  | { readonly kind: 'refused'; readonly command: string; readonly publishCommand: string; readonly stderr: string }
  | { readonly kind: 'failed'; readonly problem: string; readonly command: string }
  /** No daemon or no name to publish at. */
  | { readonly kind: 'not-connected'; readonly problem: string };

export interface TailscaleClientDeps {
  readonly run: TailscaleRunner;
  readonly clock: Clock;
  /** The host account the Hub runs as (named in the operator command). */
  readonly account: string;
  /** Whether the Hub runs as root (uid 0), which Tailscale always accepts changes from. */
  readonly isRoot: boolean;
  /** The address the Hub listens on: Serve publishes the Hub only through a loopback address it listens at. */
  readonly hubHost: string;
  /** Which process runs `tailscale`, for the sentences that name it; the Hub unless said. */
  readonly caller?: TailscaleCaller;
  readonly ttlMs?: number;
  /** A status read that fails is logged at warn, once per distinct problem (not every 30 s). */
  readonly logger?: Logger;
}

export class TailscaleClient {
  readonly #d: TailscaleClientDeps;
  #status: { readAtMs: number; value: Promise<TailscaleState> } | null = null;
  /** The last publish attempt this process made; a permission refusal there settles the operator check. */
  #lastPublish: PublishOutcome | null = null;
  /** The problem last logged; null while the daemon answers, connected. */
  #loggedProblem: string | null = null;

  constructor(deps: TailscaleClientDeps) {
    this.#d = deps;
  }

  /**
   * The daemon's status, read at most once per TTL; concurrent callers share one read. A reading
   * stamped ahead of a wall clock set back since is not reused (elapsedMs, util/clock.ts).
   */
  status(): Promise<TailscaleState> {
    const now = this.#d.clock.nowMs();
    if (this.#status !== null && elapsedMs(now, this.#status.readAtMs) < (this.#d.ttlMs ?? TAILSCALE_STATUS_TTL_MS)) return this.#status.value;
    const value = this.#d.run(['status', '--json']).then((run) => this.#noted(readTailscaleStatus(run, this.#d.caller)));
    this.#status = { readAtMs: now, value };
    return value;
  }

  #noted(state: TailscaleState): TailscaleState {
    if (state.problem !== this.#loggedProblem) {
      if (state.problem !== null)
        this.#d.logger?.warn({ problem: state.problem }, `Tailscale: ${state.problem}; this Hub counts as not connected to a tailnet`);
      else if (this.#loggedProblem !== null) this.#d.logger?.info({ nodeFqdn: state.nodeFqdn }, 'Tailscale is connected');
      this.#loggedProblem = state.problem;
    }
    return state;
  }

  /** Forget the cached status, so the next read asks the daemon. */
  invalidate(): void {
    this.#status = null;
  }

  /** Whether Serve publishes https://<nodeFqdn>/ to this machine's `port`. */
  async serve(nodeFqdn: string | null, port: number): Promise<ServeState> {
    const hub = { hubHost: this.#d.hubHost, reachableFromLoopback: reachableFromLoopback(this.#d.hubHost) };
    const run = await this.#d.run(['serve', 'status', '--json']);
    if (!run.ok) {
      // Daemons before `serve status --json` reject the flag; the operator needs a newer Tailscale, not a Serve fix.
      const problem =
        run.kind === 'failed' && /unknown|flag provided but not defined|usage/i.test(run.stderr)
          ? 'this Tailscale is too old to report its Serve config as JSON (update Tailscale)'
          : runProblem(run, this.#d.caller);
      return { verdict: 'unknown', otherTarget: null, problem, ...hub };
    }
    let json: unknown;
    try {
      // An empty config prints {} (all fields omitempty); some versions print nothing at all.
      json = run.stdout.trim() === '' ? {} : JSON.parse(run.stdout);
    } catch {
      return { verdict: 'unknown', otherTarget: null, problem: 'tailscale serve status --json printed something that is not JSON', ...hub };
    }
    const config = parseServeConfig(json);
    if (config === null)
      return { verdict: 'unknown', otherTarget: null, problem: 'tailscale serve status --json printed a document this Hub does not understand', ...hub };
    const verdict = serveVerdict(config, nodeFqdn, { host: this.#d.hubHost, port });
    return verdict.kind === 'other'
      ? { verdict: 'other', otherTarget: verdict.target, problem: null, ...hub }
      : { verdict: verdict.kind, otherTarget: null, problem: null, ...hub };
  }

  /**
   * Whether Tailscale accepts changes from the Hub's account. Root always may. A refusal seen
   * by this process's own publish attempt is decisive; otherwise the daemon's OperatorUser
   * preference (`tailscale debug prefs`) is compared with the account.
   */
  async operator(): Promise<OperatorState> {
    const { account, isRoot } = this.#d;
    // What Tailscale actually did outranks what the Hub infers about its own account.
    const last = this.#lastPublish;
    if (last?.kind === 'refused')
      return { allowed: false, account, operatorUser: null, command: last.command, basis: "Tailscale refused this Hub's Serve change" };
    if (isRoot) return { allowed: true, account, operatorUser: null, command: null, basis: `${this.#d.caller === 'cli' ? 'cihub' : 'the Hub'} runs as root` };
    const run = await this.#d.run(['debug', 'prefs']);
    let operatorUser: string | null = null;
    if (run.ok) {
      try {
        const prefs = JSON.parse(run.stdout) as { OperatorUser?: unknown };
        operatorUser = typeof prefs.OperatorUser === 'string' && prefs.OperatorUser !== '' ? prefs.OperatorUser : null;
      } catch {
        return {
          allowed: null,
          account,
          operatorUser: null,
          command: operatorCommand(account),
          basis: 'tailscale debug prefs printed something that is not JSON',
        };
      }
    } else {
      return {
        allowed: last?.kind === 'published' ? true : null,
        account,
        operatorUser: null,
        command: last?.kind === 'published' ? null : operatorCommand(account),
        basis: `could not read Tailscale's preferences (${runProblem(run, this.#d.caller)})`,
      };
    }
    if (operatorUser === account) return { allowed: true, account, operatorUser, command: null, basis: `${account} is Tailscale's operator` };
    if (last?.kind === 'published') return { allowed: true, account, operatorUser, command: null, basis: "Tailscale accepted this Hub's Serve change" };
    return {
      allowed: false,
      account,
      operatorUser,
      command: operatorCommand(account),
      basis: operatorUser === null ? 'Tailscale has no operator account set' : `Tailscale's operator is ${operatorUser}, not ${account}`,
    };
  }

  /**
   * Publishes the Hub's `port` at https://<name>/ with Serve, unless it already is or something
   * else is served there (which the Hub never replaces on its own).
   */
  async publish(port: number): Promise<PublishOutcome> {
    const outcome = await this.#publish(port);
    this.#lastPublish = outcome;
    return outcome;
  }

  /** The outcome of this process's last publish attempt; null before one. */
  lastPublish(): PublishOutcome | null {
    return this.#lastPublish;
  }

  async #publish(port: number): Promise<PublishOutcome> {
    const status = await this.status();
    if (!status.connected || status.nodeFqdn === null)
      return { kind: 'not-connected', problem: status.problem ?? 'Tailscale reports no name for this machine' };
    const serve = await this.serve(status.nodeFqdn, port);
    if (serve.verdict === 'publishes') return { kind: 'already' };
    // Without reading the config the Hub cannot know it would not replace someone else's entry.
    if (serve.verdict === 'unknown')
      return { kind: 'failed', problem: serve.problem ?? 'could not read the Serve config', command: publishCommand(port, !this.#d.isRoot) };
    if (serve.verdict === 'other')
      return { kind: 'conflict', otherTarget: serve.otherTarget ?? 'another handler', command: publishCommand(port, !this.#d.isRoot) };
    const run = await this.#d.run(publishArgs(port));
    if (run.ok) return { kind: 'published' };
    if (run.kind === 'failed' && isPermissionRefusal(run.stderr)) {
      return { kind: 'refused', command: operatorCommand(this.#d.account), publishCommand: publishCommand(port, false), stderr: run.stderr };
    }
    return { kind: 'failed', problem: runProblem(run), command: publishCommand(port, !this.#d.isRoot) };
  }
}
