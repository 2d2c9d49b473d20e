import type { PoolStatus } from '../types';
import { contextCapWarnings, isPaired } from '../words';
import { Section } from './section';
import { TableWrap } from '../TableWrap';

/**
 * A node's cap or ceiling as cihub pool status reads it (src/cli/render/context-caps.ts): a number,
 * none (the node answered and named none, which placement reads as taking any size), or not known
 * (a peer whose first health check has not answered). The two words never stand for each other.
 */
function limitWords(value: number | null, known: boolean): string {
  if (!known) return 'not known';
  return value === null ? 'none' : `${value.toLocaleString()} tokens`;
}

export function ContextCaps({ s }: { s: PoolStatus }) {
  const n = s.localNode;
  const peers = s.peers.filter(isPaired);
  return (
    <Section id="context-caps" title="Context caps">
      <TableWrap label="Context caps per node">
        <table data-testid="context-caps">
          <thead>
            <tr>
              <th scope="col">Node</th>
              <th scope="col">Context cap</th>
              <th scope="col">Prompt ceiling</th>
            </tr>
          </thead>
          <tbody>
            <tr data-node="local">
              <td className="mono">This Hub{n.nodeFqdn !== null ? ` (${n.nodeFqdn})` : ''}</td>
              <td>{limitWords(n.maxNumCtx, true)}</td>
              <td>
                {limitWords(n.maxPromptTokens, true)}
                {n.maxPromptTokensSetBy === 'env' && ' (set by HUB_POOL_MAX_PROMPT_TOKENS in the .env)'}
                {n.maxPromptTokensSetBy === 'setting' && ' (set by poolMaxPromptTokens)'}
              </td>
            </tr>
            {peers.map((p) => (
              <tr key={p.id} data-node={p.nodeFqdn}>
                <td className="mono">
                  {p.nodeFqdn}
                  {/* It takes no work, so the Hub leaves it out of the findings (status's contextCaps). */}
                  {p.status !== 'connected' && <span className="muted"> (unreachable: not counted in the warnings)</span>}
                </td>
                {/* What its last health check said; before the first answer, nothing is known. */}
                <td>{limitWords(p.maxNumCtx, p.backends !== null)}</td>
                <td>{limitWords(p.maxPromptTokens, p.backends !== null)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      {contextCapWarnings(s).map((w) => (
        <p key={w} className="notice warn small" data-testid="context-cap-warning">
          {w}
        </p>
      ))}
      <p className="small muted">
        A context cap is the window a node's engine runs: a request asking for a larger window goes first to a node whose cap can take it. A prompt estimated
        above a node's ceiling goes first to a node that can take it. None: the node named no limit, so it is read as taking any size. Not known: its first
        health check has not answered yet.
      </p>
    </Section>
  );
}
