import { useDashboard } from './context';
import { readStored, writeStored } from './browser-storage';
import type { PoolStatus } from './types';
import { distinctModels, plural } from './words';

/** Kept per browser origin, like the Home card's dismissal: the Hub itself has no first-run state. */
const FINISHED_KEY = 'cihub.firstRunFinished';

export const firstRunFinished = (): boolean => readStored(FINISHED_KEY) === '1';

/**
 * First-run setup on Home: what a new Hub needs (an engine that answers, Tailscale), and, when
 * Tailscale is connected, the optional "Pool with your other Hubs" section that opens the setup
 * guide. Finish setup never depends on pooling.
 */
export function FirstRun({ s, onFinish }: { s: PoolStatus; onFinish: () => void }) {
  const { openGuide } = useDashboard();
  const n = s.localNode;
  const answering = n.backends.filter((b) => b.healthy);
  const models = distinctModels(answering);
  return (
    <section className="card" aria-labelledby="first-run-title" data-testid="first-run">
      <h2 id="first-run-title">Finish setting up this Hub</h2>
      <ul className="plain">
        <li>
          <div className="row">
            <strong>Engines</strong>
            <span className={`badge ${answering.length > 0 ? 'good' : 'warn'}`}>{answering.length > 0 ? 'Ready' : 'Warning'}</span>
          </div>
          <p className="small">
            {answering.length > 0
              ? `${plural(answering.length, 'engine answers', 'engines answer')} here (${answering.map((b) => b.kind).join(', ')}) with ${plural(models, 'model', 'models')}.`
              : "No engine answers yet. Set OLLAMA_URL (or VLLM_URL, LEMONADE_URL, OMLX_URL, LLAMACPP_URL) in the Hub's .env to the engines on this machine and restart the Hub."}
          </p>
        </li>
        <li>
          <div className="row">
            <strong>Private VPN (Tailscale)</strong>
            <span className={`badge ${n.tailscaleConnected ? 'good' : 'warn'}`}>
              {n.tailscaleConnected ? 'Active' : n.tailnetSource === 'env' ? 'Named by HUB_NODE_FQDN' : 'Not connected'}
            </span>
          </div>
          <p className="small">
            {n.tailscaleConnected
              ? `This Hub is ${n.nodeFqdn ?? 'on your tailnet'}.`
              : n.tailnetSource === 'env'
                ? `The name ${n.nodeFqdn ?? ''} comes from HUB_NODE_FQDN (testing and demos); Tailscale is not read.`
                : 'Other devices and other Hubs reach this Hub over Tailscale. Run tailscale up on this machine, with MagicDNS on for the tailnet.'}
          </p>
        </li>
        {n.tailscaleConnected && s.disabledBy !== 'env' && (
          <li>
            <h3 id="first-run-pool">Pool with your other Hubs</h3>
            <p className="small">Optional. Pair this Hub with other Hubs you own, so an app here can be served by one that has the model or a shorter queue.</p>
            <button type="button" onClick={() => openGuide()}>
              Set up Hub Pool
            </button>
          </li>
        )}
      </ul>
      <div className="row">
        <button
          type="button"
          className="primary"
          onClick={() => {
            writeStored(FINISHED_KEY, '1');
            onFinish();
          }}
        >
          Finish setup
        </button>
        <span className="small muted">Pooling does not have to be set up to finish; Hub Pool stays in the menu.</span>
      </div>
    </section>
  );
}
