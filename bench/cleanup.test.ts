import { describe, expect, test } from 'vitest';
import { cleanupMessage } from './cleanup.ts';

describe('cleanupMessage', () => {
  test('says why the clean-up failed and what the bench left for it', () => {
    const err = new Error("the bench's sandboxes in bench never went: sandbox tti-1, pod tti-1");
    expect(cleanupMessage(err, 'the templates are left for them')).toBe(
      "the bench's sandboxes in bench never went: sandbox tti-1, pod tti-1; the templates are left for them",
    );
    expect(cleanupMessage(err)).toBe("the bench's sandboxes in bench never went: sandbox tti-1, pod tti-1");
  });

  test('a rejection that is not an Error is said as it is', () => {
    expect(cleanupMessage('namespace peer gone: timed out')).toBe('namespace peer gone: timed out');
    expect(cleanupMessage(undefined, 'template t left for them')).toBe('undefined; template t left for them');
  });
});
