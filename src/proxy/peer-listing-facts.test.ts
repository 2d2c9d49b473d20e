import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { listedFacts } from './peer-listing-facts.js';

const holder = (peer: string, parameterSize: string | null, capabilities: string[] | null) => ({ peer, detail: { parameterSize, capabilities } });

describe("listedFacts: what /api/tags states about a peer-only model, from its holders' published facts", () => {
  it('states what the one holder published', () => {
    assert.deepEqual(listedFacts([holder('b', '8.2B', ['completion', 'tools'])]), { parameterSize: '8.2B', capabilities: ['completion', 'tools'] });
  });

  it('states nothing for a holder that published nothing: an empty size and no capabilities key', () => {
    assert.deepEqual(listedFacts([{ peer: 'b', detail: undefined }]), { parameterSize: '', capabilities: null });
    assert.deepEqual(listedFacts([holder('b', null, null)]), { parameterSize: '', capabilities: null });
  });

  it('states a size only when every holder that states one states the same', () => {
    assert.equal(listedFacts([holder('b', '8B', null), holder('c', '8B', null)]).parameterSize, '8B');
    assert.equal(listedFacts([holder('b', '8B', null), holder('c', '70B', null)]).parameterSize, '');
  });

  it('states only the capabilities every describing holder lists, in the order of the first holder by name', () => {
    const c = holder('c', null, ['tools', 'completion', 'vision']);
    const b = holder('b', null, ['completion', 'thinking', 'tools']);
    assert.deepEqual(listedFacts([c, b]).capabilities, ['completion', 'tools']);
    assert.deepEqual(listedFacts([b, c]).capabilities, ['completion', 'tools'], 'the order peers were read in changes nothing');
  });

  it('leaves capabilities out when the holders have none in common, as Ollama leaves out an empty list', () => {
    assert.equal(listedFacts([holder('b', null, ['embedding']), holder('c', null, ['completion'])]).capabilities, null);
  });

  it('lets a holder that describes nothing neither add a fact nor take one away', () => {
    const silent = { peer: 'a', detail: undefined };
    assert.deepEqual(listedFacts([silent, holder('c', '8B', ['completion'])]), { parameterSize: '8B', capabilities: ['completion'] });
  });

  it('lists a capability a holder repeats once', () => {
    assert.deepEqual(listedFacts([holder('b', null, ['tools', 'tools'])]).capabilities, ['tools']);
  });
});
