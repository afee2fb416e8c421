// Where the tests find the `bozkir` binary: $BOZKIR_BIN, else the newest of
// $CARGO_TARGET_DIR/{debug,release}/bozkir and target/{debug,release}/bozkir (the newest, so a
// stale release build does not serve an old embedded viewer). null when none exists.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));

export function findBozkir() {
  if (process.env.BOZKIR_BIN) return existsSync(process.env.BOZKIR_BIN) ? process.env.BOZKIR_BIN : null;
  const dirs = [process.env.CARGO_TARGET_DIR, join(root, 'target')].filter(Boolean);
  const cands = dirs.flatMap((d) => ['debug', 'release'].map((p) => join(d, p, 'bozkir'))).filter((p) => existsSync(p));
  cands.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return cands[0] ?? null;
}
