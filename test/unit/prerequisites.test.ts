import * as assert from 'node:assert/strict';

// @ts-expect-error: a plain .mjs script, typed by its use here
import { missingPrerequisites } from '../../scripts/code-server-install.mjs';

type Check = (options: {
  platform: string;
  exists: (file: string) => boolean;
  has: (command: string) => boolean;
}) => string[];
const check = missingPrerequisites as Check;

describe('npm start prerequisites (code-server install)', () => {
  it('names the Kerberos headers, a compiler, make and python3 when a Linux machine lacks them', () => {
    const missing = check({ platform: 'linux', exists: () => false, has: () => false });
    assert.equal(missing.length, 4);
    assert.match(missing[0]!, /libkrb5-dev/);
    assert.match(missing[1]!, /build-essential/);
  });

  it('asks for nothing on a Linux machine that has them', () => {
    const missing = check({
      platform: 'linux',
      exists: (file) => file === '/usr/include/gssapi/gssapi.h',
      has: (command) => ['c++', 'make', 'python3'].includes(command),
    });
    assert.deepEqual(missing, []);
  });

  it("asks a Mac for Xcode's command line tools only when clang++ is missing", () => {
    assert.match(check({ platform: 'darwin', exists: () => false, has: () => false })[0]!, /xcode-select/);
    assert.deepEqual(check({ platform: 'darwin', exists: () => false, has: () => true }), []);
  });
});
