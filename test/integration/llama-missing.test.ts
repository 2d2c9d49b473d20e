/**
 * Where node-llama-cpp is not installed (a global install, or a platform without its binary),
 * the two commands that run the real engine say in one sentence how to get it. The package is
 * hidden from a real CLI process by a resolve hook, the thinnest seam that makes it absent.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { freshDataDir, runCli } from '../helpers/hub-process.js';
import { LLAMA_MISSING } from '../../src/cli/llama-import.js';

const HOOKS = `export async function resolve(specifier, context, next) {
  if (specifier === 'node-llama-cpp' || specifier.startsWith('node-llama-cpp/')) {
    const err = new Error("Cannot find package 'node-llama-cpp' imported from " + context.parentURL);
    err.code = 'ERR_MODULE_NOT_FOUND';
    throw err;
  }
  return next(specifier, context);
}`;
const REGISTER = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;
const WITHOUT_LLAMA = { NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(REGISTER)}` };

describe('without node-llama-cpp installed', () => {
  for (const args of [
    ['dev', 'llama', '--port', '0'],
    ['demo', '--real', '--once'],
  ]) {
    it(`cihub ${args.join(' ')} says in one sentence how to get it`, async () => {
      const res = await runCli(args, { dataDir: freshDataDir(), dataDirFlag: false, env: WITHOUT_LLAMA });
      assert.equal(res.stderr, `${LLAMA_MISSING}\n`);
      assert.equal(res.code, 1);
    });
  }
});
