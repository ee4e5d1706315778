import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, test } from 'vitest';
import { Indexer } from './indexer.ts';

const pod = (namespace: string, name: string, labels: Record<string, string> = {}): KubernetesObject => ({
  metadata: { namespace, name, labels },
});
const names = (objs: KubernetesObject[]) =>
  objs.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`).sort();

describe('Indexer', () => {
  const byOwner = (o: KubernetesObject) => {
    const v = o.metadata?.labels?.owner;
    return v ? [`${o.metadata?.namespace}/${v}`] : [];
  };

  test('files objects under each value, per namespace', () => {
    const ix = new Indexer({ owner: byOwner });
    ix.put(pod('a', 'p1', { owner: 's' }));
    ix.put(pod('a', 'p2', { owner: 's' }));
    ix.put(pod('b', 'p1', { owner: 's' }));
    ix.put(pod('a', 'p3'));
    expect(names(ix.get('owner', 'a/s'))).toEqual(['a/p1', 'a/p2']);
    expect(names(ix.get('owner', 'b/s'))).toEqual(['b/p1']);
    expect(ix.get('owner', 'a/other')).toEqual([]);
  });

  test('an update moves the object to its new values; the latest version is returned', () => {
    const ix = new Indexer({ owner: byOwner });
    ix.put(pod('a', 'p1', { owner: 's' }));
    ix.put({ ...pod('a', 'p1', { owner: 't' }), kind: 'Pod' });
    expect(ix.get('owner', 'a/s')).toEqual([]);
    expect(ix.get('owner', 'a/t')).toEqual([{ ...pod('a', 'p1', { owner: 't' }), kind: 'Pod' }]);
    // The label removed: filed nowhere.
    ix.put(pod('a', 'p1'));
    expect(ix.get('owner', 'a/t')).toEqual([]);
  });

  test('a delete unfiles it; deleting what was never filed is nothing', () => {
    const ix = new Indexer({ owner: byOwner });
    ix.put(pod('a', 'p1', { owner: 's' }));
    ix.delete(pod('a', 'p1', { owner: 's' }));
    ix.delete(pod('a', 'never'));
    expect(ix.get('owner', 'a/s')).toEqual([]);
  });

  test('several indexes and several values per object; a duplicate value files once', () => {
    const ix = new Indexer({
      owner: byOwner,
      letters: (o: KubernetesObject) => [...(o.metadata?.name ?? '')].map((c) => c),
    });
    ix.put(pod('a', 'abba', { owner: 's' }));
    expect(names(ix.get('letters', 'a'))).toEqual(['a/abba']);
    expect(names(ix.get('letters', 'b'))).toEqual(['a/abba']);
    expect(names(ix.get('owner', 'a/s'))).toEqual(['a/abba']);
  });

  test('asking an index that was never declared is a programming error', () => {
    expect(() => new Indexer({}).get('owner', 'a/s')).toThrow('no index named owner');
  });
});
