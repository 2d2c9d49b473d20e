import type { PoolStatus } from '../types';
import { plural } from '../words';
import { Section } from './section';
import { TableWrap } from '../TableWrap';

export function PoolModels({ s }: { s: PoolStatus }) {
  const single = s.models.filter((m) => m.singleNode).length;
  return (
    <Section id="pool-models-title" title="What the pool can serve">
      <p className="small">
        {plural(s.models.length, 'model', 'models')}, {single} on one node only.
      </p>
      {s.models.length === 0 ? (
        <p className="muted">No reachable node reports a model.</p>
      ) : (
        <TableWrap label="Models the pool can serve">
          <table>
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Nodes</th>
              </tr>
            </thead>
            <tbody>
              {s.models.map((m) => (
                <tr key={m.model}>
                  <td className="mono">
                    {m.model}
                    {m.singleNode && (
                      <span title="On one node only" aria-label="warning: on one node only">
                        {' '}
                        ⚠
                      </span>
                    )}
                  </td>
                  <td className="mono">{m.nodes.join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </Section>
  );
}
