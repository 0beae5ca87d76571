/**
 * Re-seals every device private key provisioning stores with the current sealing key, so the
 * previous one can be destroyed (docs/operations.md, "Rotate every secret"). Run it once every
 * provisioning process holds the new key as PRIVATE_KEY_ENCRYPTION_KEY and the old one as
 * PRIVATE_KEY_ENCRYPTION_KEY_PREVIOUS, with the same two variables and provisioning's DATABASE_URL:
 *
 *   npx tsx scripts/rotate-sealing-key.ts [--batch-size 200] [--pause-ms 0]
 *   npx tsx scripts/rotate-sealing-key.ts --check
 *
 * Each batch is one transaction; a run stopped anywhere is resumed by running it again, which
 * re-seals only the rows not yet sealed by the current key. `--check` only counts them. Exits 0
 * when none is left, 1 when some are (it names the devices no held key opens), 78 on bad settings.
 * It prints counts and device ids, never a key.
 */
import { parseArgs } from 'node:util';
import { Type } from 'typebox';
import { connectDatabase } from '@qw/platform/db';
import { loadConfig, loadConfigOrExit, previousDiffers } from '@qw/platform/config';
import { SealingKeys } from '@qw/wireguard';
import { countSealedByOthers, resealPrivateKeys } from '@qw/provisioning/reseal-private-keys';
import type { ProvisioningDatabase } from '../services/provisioning/src/database.ts';

const { values: flags } = parseArgs({
  options: {
    'batch-size': { type: 'string', default: '200' },
    'pause-ms': { type: 'string', default: '0' },
    check: { type: 'boolean', default: false },
  },
});
const batchSize = Number(flags['batch-size']);
const pauseMs = Number(flags['pause-ms']);
if (!Number.isInteger(batchSize) || batchSize < 1 || !Number.isInteger(pauseMs) || pauseMs < 0) {
  process.stderr.write('rotate-sealing-key: --batch-size must be a positive integer and --pause-ms at least 0\n');
  process.exit(78);
}

const config = loadConfigOrExit('rotate-sealing-key', () =>
  loadConfig(
    Type.Object({
      DATABASE_URL: Type.String({ pattern: '^postgres(ql)?://' }),
      PRIVATE_KEY_ENCRYPTION_KEY: Type.String({ minLength: 43 }),
      PRIVATE_KEY_ENCRYPTION_KEY_PREVIOUS: Type.Optional(Type.String({ minLength: 43 })),
    }),
    process.env,
    [previousDiffers('PRIVATE_KEY_ENCRYPTION_KEY_PREVIOUS', 'PRIVATE_KEY_ENCRYPTION_KEY')],
  ),
);
const vault = new SealingKeys(config.PRIVATE_KEY_ENCRYPTION_KEY, config.PRIVATE_KEY_ENCRYPTION_KEY_PREVIOUS);
const database = connectDatabase<ProvisioningDatabase>(config.DATABASE_URL, 'provisioning', 1);
try {
  if (flags.check) {
    const left = await countSealedByOthers(database.db, vault.currentId);
    process.stdout.write(`${left} device keys are not sealed by the current key (${vault.currentId})\n`);
    process.exitCode = left === 0 ? 0 : 1;
  } else {
    let done = 0;
    const result = await resealPrivateKeys(database.db, vault, {
      batchSize,
      pauseMs,
      onBatch: (batch, left) => {
        done += batch.resealed;
        process.stdout.write(`re-sealed ${batch.resealed} (${done} in this run); ${left} left\n`);
      },
    });
    if (result.unopened.length > 0)
      process.stdout.write(`no held key opens the keys of these devices: ${result.unopened.join(', ')}\n`);
    process.stdout.write(`done: ${result.resealed} re-sealed with ${vault.currentId}; ${result.left} left\n`);
    process.exitCode = result.left === 0 ? 0 : 1;
  }
} finally {
  await database.db.destroy();
}
