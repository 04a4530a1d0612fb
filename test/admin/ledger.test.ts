import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../server/errors.js';
import { readLedger } from '../../server/routes/admin-validation.js';

// The migration ledger behind GET /v1/admin/validation/migration: served as found when a
// deployment bundles partner demand data, 404 otherwise (the route test covers the 404 answer).

describe('the migration ledger', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'rules-ledger-'));

  it('is the bundled JSON object, as found', async () => {
    const ledger = { variables: [{ name: 'snap', status: 'mapped', demand_weight: 0.7 }, { name: 'wic', status: 'awaiting' }], covered_states: ['co', 'ny'] };
    const file = path.join(dir, 'ledger.json');
    writeFileSync(file, JSON.stringify(ledger));
    expect(await readLedger(file)).toEqual(ledger);
  });

  it('is not_found when no ledger is bundled', async () => {
    const missing = readLedger(path.join(dir, 'absent.json'));
    await expect(missing).rejects.toBeInstanceOf(ApiError);
    await expect(missing).rejects.toMatchObject({ code: 'not_found', status: 404 });
  });

  it('refuses a ledger that is not a JSON object', async () => {
    const file = path.join(dir, 'list.json');
    writeFileSync(file, '[1, 2]');
    await expect(readLedger(file)).rejects.toThrow(/must hold a JSON object/);
  });
});
