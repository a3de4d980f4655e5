// The README's five-minute try, run as a reader would paste it into a shell next to a sandbox
// gateway (its data/ directory holding the demo merchant and the admin token), with only the
// gateway's address changed: the payment it creates ends Succeeded.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { listeningGateway } from '../testing/browser.ts';
import { BACKENDS } from '../testing/databases.ts';
import { ADMIN_TOKEN, type TestGateway } from '../testing/harness.ts';

for (const backend of BACKENDS) {
  describe(`the README's five-minute try [${backend}]`, () => {
    let t: TestGateway;
    let base: string;
    before(async () => {
      ({ t, base } = await listeningGateway(backend));
    });
    after(() => t.close());

    it('creates a payment, pays it with the test card and reads it back as Succeeded', {
      timeout: 60_000,
    }, async () => {
      const readme = fs.readFileSync('README.md', 'utf8');
      const section = readme.slice(readme.indexOf('## Try it in five minutes'));
      const script = /```sh\n([\s\S]*?)```/.exec(section)![1]!.replaceAll('http://127.0.0.1:8080', base);
      // The reader's working directory: ./data is the sandbox's data directory (demo merchant file
      // written by the gateway's bootstrap; the admin token file as `npm start` writes it).
      const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'karibche-readme-'));
      const dataDir = t.gw.services.config.dataDir;
      assert.ok(fs.existsSync(path.join(dataDir, 'demo-merchant.json')), 'the sandbox wrote the demo merchant');
      fs.symlinkSync(dataDir, path.join(cwd, 'data'));
      if (!fs.existsSync(path.join(dataDir, 'admin-token')))
        fs.writeFileSync(path.join(dataDir, 'admin-token'), `${ADMIN_TOKEN}\n`);
      // Asynchronously: the gateway that answers runs in this process's event loop.
      const { stdout } = await promisify(execFile)('sh', ['-e', '-c', script], {
        cwd,
        encoding: 'utf8',
        timeout: 45_000,
      });
      // curl -s prints no newline: the simulate answer and the final read follow each other.
      const last = JSON.parse(stdout.slice(stdout.lastIndexOf('{"payId"')));
      assert.equal(last.status, 'Succeeded', stdout);
      assert.equal(last.amount, 25.4);
      assert.equal(last.paymentCardNumber, '411111******1111');
    });
  });
}

describe('the README’s test counts', () => {
  it('states the run counts npm test uses and the variables of the long runs', () => {
    const readme = fs.readFileSync('README.md', 'utf8').replace(/\s+/g, ' ');
    const modelDefault = /KARIBCHE_MODEL_RUNS \?\? (\d+)/.exec(
      fs.readFileSync('src/payments/lifecycle.model.test.ts', 'utf8'),
    )![1]!;
    const seed = /KARIBCHE_MODEL_SEED \?\? (\d+)/.exec(
      fs.readFileSync('src/payments/lifecycle.model.test.ts', 'utf8'),
    )![1]!;
    const grammarDefault = /KARIBCHE_HOSTILE_GRAMMAR_RUNS \?\? ([\d_]+)/
      .exec(fs.readFileSync('test/security/hostile-grammar.test.ts', 'utf8'))![1]!
      .replace(/_/g, '');
    assert.match(
      readme,
      new RegExp(`${modelDefault} random sequences of up to 25 steps per backend in \`npm test\` \\(seed ${seed}\\)`),
    );
    assert.match(
      readme,
      new RegExp(`${Number(grammarDefault).toLocaleString('en')} cases per backend in \`npm test\``),
    );
    assert.match(readme, /KARIBCHE_MODEL_RUNS=\d+/);
    assert.match(readme, /KARIBCHE_HOSTILE_GRAMMAR_RUNS=\d+/);
  });
});
