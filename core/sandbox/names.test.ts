import { describe, expect, it } from 'vitest';
import { previewHost, previewUrl } from './names.ts';

describe('previewHost', () => {
  it('names the namespace: the same sandbox name and port in two namespaces get two hosts', () => {
    const a = previewHost({ namespace: 'team-a', name: 'web' }, 8080, 'preview.example.com');
    const b = previewHost({ namespace: 'team-b', name: 'web' }, 8080, 'preview.example.com');
    expect(a).toBe('sandbox-web-8080.team-a.preview.example.com');
    expect(b).toBe('sandbox-web-8080.team-b.preview.example.com');
    expect(previewUrl({ namespace: 'team-a', name: 'web' }, 8080, 'preview.example.com')).toBe(
      'https://sandbox-web-8080.team-a.preview.example.com/',
    );
  });

  it('is one host per (namespace, sandbox, port): names that share dashes and digits do not meet', () => {
    // Namespaces are DNS labels (no dots): the label before the domain is always the namespace.
    const hosts = [
      previewHost({ namespace: 'x-5', name: 'a' }, 80, 'p.test'),
      previewHost({ namespace: 'x', name: 'a-5' }, 80, 'p.test'),
      previewHost({ namespace: '5-x', name: 'a' }, 80, 'p.test'),
      previewHost({ namespace: 'x', name: 'a-80' }, 5, 'p.test'),
      previewHost({ namespace: 'x', name: 'a' }, 805, 'p.test'),
      previewHost({ namespace: 'b', name: 'a.x' }, 80, 'p.test'),
      previewHost({ namespace: 'x', name: 'a' }, 80, 'b.p.test'),
    ];
    expect(new Set(hosts).size).toBe(hosts.length);
  });
});
