import { describe, expect, test } from 'vitest';
import { KeyRegistry, keyPrefix, newRawKey, sha256 } from '../../../server/auth/keys.js';
import { MemoryStore } from '../../../server/store/memory.js';
import type { StoredKey } from '../../../server/store/store.js';

// The key cache: a change another instance announces takes effect at the next request, even when
// the announcement arrives while a re-read of the keys is under way.

/** A store that announces key changes as a shared one does, and whose key reads can be held up
 *  after they have read (so a change can land between the read and its result). */
class AnnouncingStore extends MemoryStore {
  announce: () => void = () => undefined;
  hold: Promise<void> | undefined;
  watchKeys(listener: () => void): void {
    this.announce = listener;
  }
  override async listKeys(): Promise<StoredKey[]> {
    const keys = await super.listKeys();
    await this.hold;
    return keys;
  }
}

const stored = (raw: string): StoredKey => ({ id: 'late', key_sha256: sha256(raw), prefix: keyPrefix(raw), scopes: ['*'], status: 'active', kind: 'admin', created_at: new Date().toISOString() });

describe('KeyRegistry', () => {
  test('a key change announced while the keys are being re-read is not lost to that re-read', async () => {
    const store = new AnnouncingStore();
    const registry = new KeyRegistry([], store);
    let release!: () => void;
    store.hold = new Promise((resolve) => (release = resolve));
    const inFlight = registry.refresh(); // reads the keys before the new one exists
    await new Promise((r) => setTimeout(r, 10));
    const raw = newRawKey('admin');
    await store.createKey(stored(raw));
    store.announce();
    store.hold = undefined;
    release();
    await inFlight;
    expect((await registry.authenticate(raw))?.id).toBe('late');
  });

  test('without an announcement in between, a re-read is fresh for 15 s', async () => {
    const store = new AnnouncingStore();
    const registry = new KeyRegistry([], store);
    await registry.refresh();
    const raw = newRawKey('admin');
    await store.createKey(stored(raw));
    expect(await registry.authenticate(raw)).toBeUndefined();
    store.announce();
    expect((await registry.authenticate(raw))?.id).toBe('late');
  });
});
