/**
 * The CLI conventions from the outside (issue 12, item 7), running the real `cihub`:
 * --version, exit codes 2 (usage), 3 (no Hub) and 1 (refused), completion scripts that the
 * shells load and complete with, and step lines only on a terminal.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CIHUB_BIN, freshDataDir, REPO_ROOT, runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { assertInstalled, onPath } from '../helpers/required-tool.js';

const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** Runs a shell script with the completion script for that shell in a file; resolves with stdout. */
function inShell(shell: 'bash' | 'zsh' | 'fish', script: string, completionFile: string): string {
  const res = spawnSync(shell, ['-c', script.replaceAll('$FILE', completionFile)], { encoding: 'utf8' });
  assert.equal(res.status, 0, res.stderr);
  return res.stdout;
}

describe('cihub --version', () => {
  it("prints package.json's version and exits 0", async () => {
    const res = await runCli(['--version'], { dataDir: freshDataDir() });
    assert.equal(res.code, 0);
    assert.equal(res.stdout.trim(), VERSION);
  });
});

describe('exit codes', () => {
  const usage: string[][] = [
    ['pool', 'bogus'],
    ['pool'],
    ['serve', '--port', 'x'],
    ['api-key', 'create', '--name', 'n'],
    ['completion', 'tcsh'],
    ['pool', 'pin', 'local', '--model', ''],
    ['pool', 'pair', 'hub-b.example.ts.net', '--pin', '12', '--yes'],
    ['logs', '--since', 'yesterday'],
    ['pool', 'log', '--since', '2026-11-30T12:00:00'],
    ['logs', '--level', 'loud'],
    ['pool', 'slots', 'four', '--yes'],
    ['pool', 'ceiling', '16k', '--yes'],
    ['pool', 'context-cap', 'big', '--yes'],
    ['dev', 'engine', '--port', '0', '--dialect', 'ollama', '--model', ','],
    ['pool', 'pair', 'https://hub-b.example.ts.net', '--pin', '123456', '--yes'],
    ['pool', 'pair', 'hub-b.example.ts.net/api', '--yes'],
    ['api-key', 'create', '--name', 'n', '--scope', 'admin', '--yes'],
    ['pool', 'approve', '', '--yes'],
    ['pool', 'unpair', ' ', '--yes'],
  ];
  for (const args of usage) {
    it(`cihub ${args.join(' ')}: exit 2, a usage error, nothing on stdout`, async () => {
      const res = await runCli(args, { dataDir: freshDataDir(), dataDirFlag: args[0] !== 'completion' && args[0] !== 'dev' });
      assert.equal(res.code, 2, res.stderr);
      assert.equal(res.stdout, '');
      assert.notEqual(res.stderr.trim(), '');
    });
  }

  it('a node statement the command line cannot read says it changed nothing in the one sentence other refusals use', async () => {
    for (const args of [
      ['pool', 'slots', 'four', '--yes'],
      ['pool', 'ceiling', '16k', '--yes'],
      ['pool', 'context-cap', 'big', '--yes'],
    ]) {
      const res = await runCli(args, { dataDir: freshDataDir() });
      assert.match(res.stderr, /^Nothing was changed: [^\n]*; got "[^"]+"\.\n$/, args.join(' '));
    }
  });

  it('cihub dev engine on a port something already listens on: exit 2, naming the port, as `cihub serve` does', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const res = await runCli(['dev', 'engine', '--port', String(port), '--dialect', 'ollama', '--model', 'qwen3:8b'], {
        dataDir: freshDataDir(),
        dataDirFlag: false,
      });
      assert.equal(res.code, 2, res.stderr);
      assert.equal(res.stdout, '');
      assert.equal(
        res.stderr,
        `Port ${port} on 127.0.0.1 is already in use (another engine, or another program, listens there); stop it, or give --port another.\n`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  for (const args of [
    ['pool', 'status'],
    ['serve', '--port', '0'],
  ]) {
    it(`cihub --data-dir '' ${args.join(' ')}: exit 2, naming the empty option, before anything is read or made`, async () => {
      const res = await runCli(['--data-dir', '', ...args], { dataDir: freshDataDir(), dataDirFlag: false });
      assert.equal(res.code, 2, res.stderr);
      assert.equal(res.stdout, '');
      assert.equal(res.stderr, '--data-dir needs a directory (the folder that holds hub.json and operator.key); it was given an empty value.\n');
    });
  }

  it('a --data-dir that names a file: exit 2, saying so, not that this account cannot read it', async () => {
    const file = join(freshDataDir(), 'hub.json');
    writeFileSync(file, '{}\n', { mode: 0o600 });
    for (const args of [
      ['pool', 'peers'],
      ['pool', 'doctor'],
    ]) {
      const res = await runCli(args, { dataDir: file });
      assert.equal(res.code, 2, res.stderr);
      assert.equal(res.stdout, '');
      assert.match(
        res.stderr,
        new RegExp(`^The data dir ${file} is a file, not a directory: --data-dir \\(or CIHUB_DATA_DIR\\) names the folder that holds hub\\.json`),
      );
    }
  });

  for (const args of [['help'], ['help', 'pool'], ['pool', 'help'], ['pool', 'help', 'status'], ['--help'], ['pool', 'status', '--help']]) {
    it(`cihub ${args.join(' ')}: exit 0, the help on stdout`, async () => {
      const res = await runCli(args, { dataDir: freshDataDir() });
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stdout, /^Usage: cihub /m);
    });
  }

  for (const args of [
    ['bogus', '--help'],
    ['pool', 'bogus', '--help'],
    ['api-key', 'bogus', '-h'],
    ['dev', 'bogus', '--help'],
  ]) {
    it(`cihub ${args.join(' ')}: exit 2 naming the unknown command, not the help and exit 0`, async () => {
      const res = await runCli(args, { dataDir: freshDataDir(), dataDirFlag: args[0] !== 'dev' });
      assert.equal(res.code, 2, res.stdout);
      assert.equal(res.stdout, '');
      assert.match(res.stderr, /^error: unknown command 'bogus'$/m);
    });
  }

  for (const [args, usageAt] of [
    [['dashboard', '--bad'], 'cihub dashboard'],
    [['api-key', 'create'], 'cihub api-key create'],
    [['api-key', 'bogus'], 'cihub api-key'],
    [['dev', 'engine'], 'cihub dev engine'],
    [['dev', 'bogus'], 'cihub dev'],
    [['pool', 'status', '--bad'], 'cihub pool status'],
    [['pool', 'bogus'], 'cihub pool'],
  ] as const) {
    it(`cihub ${args.join(' ')}: the error, then one line naming \`${usageAt} --help\`, not the whole usage`, async () => {
      const res = await runCli([...args], { dataDir: freshDataDir(), dataDirFlag: args[0] !== 'dev' });
      assert.equal(res.code, 2, res.stderr);
      const lines = res.stderr.trimEnd().split('\n');
      assert.match(lines[0] ?? '', /^error: /);
      assert.ok(lines.at(-1)?.startsWith(`(\`${usageAt} --help\` lists its `), res.stderr);
      assert.doesNotMatch(res.stderr, /Usage:/);
    });
  }

  it('cihub help pool status describes pool status, not the pool group', async () => {
    const res = await runCli(['help', 'pool', 'status'], { dataDir: freshDataDir() });
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^Usage: cihub pool status /);
  });

  for (const args of [
    ['help', 'pool', 'nonsense'],
    ['pool', 'help', 'nonsense'],
  ]) {
    it(`cihub ${args.join(' ')} is a usage error naming the unknown word in one sentence, not the group's usage`, async () => {
      const res = await runCli(args, { dataDir: freshDataDir() });
      assert.equal(res.code, 2);
      assert.equal(res.stderr, 'cihub pool has no command "nonsense"; `cihub pool --help` lists them.\n');
    });
  }

  it('cihub pool help status describes pool status, as cihub help pool status does', async () => {
    const res = await runCli(['pool', 'help', 'status'], { dataDir: freshDataDir() });
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^Usage: cihub pool status /);
  });

  for (const args of [
    ['pool', 'status'],
    ['pool', 'log', '--json'],
    ['api-key', 'list'],
  ]) {
    it(`cihub ${args.join(' ')} with no Hub running: exit 3`, async () => {
      const res = await runCli(args, { dataDir: freshDataDir() });
      assert.equal(res.code, 3);
      assert.match(res.stderr, /^No Hub is running for the data dir/);
    });
  }

  it('a hub.json whose process has gone: exit 3', async () => {
    const dataDir = freshDataDir();
    // A pid this test started and waited for: certainly no longer running.
    const gone = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    writeFileSync(
      join(dataDir, 'hub.json'),
      JSON.stringify({ url: 'http://127.0.0.1:9', port: 9, pid: Number(gone.stdout.trim()), startedAt: new Date().toISOString(), bootId: 'b' }),
    );
    writeFileSync(join(dataDir, 'operator.key'), 'cihub_op_x\n');
    const res = await runCli(['pool', 'peers'], { dataDir });
    assert.equal(res.code, 3);
  });

  it('a hub.json with no operator key beside it: exit 1, in the words the guide uses for it', async () => {
    const dataDir = freshDataDir();
    // This test's own pid: alive, so only the missing key can stop the command.
    writeFileSync(
      join(dataDir, 'hub.json'),
      JSON.stringify({ url: 'http://127.0.0.1:9', port: 9, pid: process.pid, startedAt: new Date().toISOString(), bootId: 'b' }),
    );
    const res = await runCli(['pool', 'peers'], { dataDir });
    assert.equal(res.code, 1);
    assert.match(res.stderr, /^No device key found: .* has no operator\.key this account can read\. Run cihub as the user that owns that folder/);
  });

  describe('against a running Hub', () => {
    let hub: HubProcess;
    before(async () => {
      hub = await startHubProcess();
    });
    after(async () => {
      await hub?.stop();
    });

    it('a change the Hub refuses: exit 1', async () => {
      const res = await runCli(['pool', 'set', 'poolLocalAffinity', '99', '--yes'], { dataDir: hub.dataDir });
      assert.equal(res.code, 1);
      assert.match(res.stderr, /^Nothing was changed: poolLocalAffinity must be/);
    });

    it('a change with no terminal to confirm it: exit 1', async () => {
      const res = await runCli(['pool', 'disable'], { dataDir: hub.dataDir });
      assert.equal(res.code, 1);
      assert.match(res.stderr, /needs confirmation/);
    });

    it('a CI_HUB_ASSUME_YES it cannot read: exit 2 naming it, and nothing changed', async () => {
      // It used to read as unset: the refusal then told the operator to set the variable they had set.
      const res = await runCli(['pool', 'disable'], { dataDir: hub.dataDir, env: { CI_HUB_ASSUME_YES: 'y' } });
      assert.equal(res.code, 2);
      assert.equal(res.stderr, 'CI_HUB_ASSUME_YES=y is not one of true, false, 1, 0, yes, no, on, off: set it to 1, or unset it.\n');
      assert.equal((await hub.api<{ poolEnabled: boolean }>('GET', '/api/inference/pool/settings')).json.poolEnabled, true);
    });

    const changes: [string, string[], () => Promise<unknown>][] = [
      [
        'pool slots',
        ['pool', 'slots', '4'],
        async () => (await hub.api<{ inferenceOllamaSlots: unknown }>('GET', '/api/inference/pool/settings')).json.inferenceOllamaSlots,
      ],
      [
        'api-key create',
        ['api-key', 'create', '--name', 'asked', '--scope', 'inference'],
        async () => (await hub.api<{ keys: unknown[] }>('GET', '/api/hub/api-keys')).json.keys.length,
      ],
    ];
    for (const [name, args, state] of changes) {
      it(`${name} asks first: with no terminal and no --yes it changes nothing (exit 1); --yes or CI_HUB_ASSUME_YES=1 goes ahead`, async () => {
        const before = await state();
        const refused = await runCli(args, { dataDir: hub.dataDir });
        assert.equal(refused.code, 1, refused.stdout);
        assert.match(refused.stderr, /^Nothing was changed: this command needs confirmation, so pass --yes or set CI_HUB_ASSUME_YES=1/);
        assert.deepEqual(await state(), before);
        const withYes = await runCli([...args, '--yes'], { dataDir: hub.dataDir });
        assert.equal(withYes.code, 0, withYes.stderr);
        assert.notDeepEqual(await state(), before);
        const assumed = await runCli(args, { dataDir: hub.dataDir, env: { CI_HUB_ASSUME_YES: '1' } });
        assert.equal(assumed.code, 0, assumed.stderr);
      });
    }

    it('a read that works: exit 0', async () => {
      const res = await runCli(['pool', 'status', '--json'], { dataDir: hub.dataDir });
      assert.equal(res.code, 0, res.stderr);
      assert.equal(typeof JSON.parse(res.stdout), 'object');
    });
  });
});

describe('cihub completion', () => {
  const scriptFor = async (shell: string): Promise<string> => {
    const dataDir = freshDataDir();
    const res = await runCli(['completion', shell], { dataDir, dataDirFlag: false });
    assert.equal(res.code, 0, res.stderr);
    const file = join(dataDir, `completion.${shell}`);
    writeFileSync(file, res.stdout);
    return file;
  };

  it('bash: completes commands, subcommands and the flags of the command typed', async () => {
    const file = await scriptFor('bash');
    const complete = (words: string[]) =>
      inShell(
        'bash',
        `source $FILE; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _cihub; printf '%s\\n' "\${COMPREPLY[@]}"`,
        file,
      )
        .split('\n')
        .filter(Boolean);
    assert.deepEqual(complete(['cihub', 'po']), ['pool']);
    assert.deepEqual(complete(['cihub', 'pool', 'st']), ['status']);
    assert.deepEqual(complete(['cihub', '--data-dir', '/tmp/x', 'pool', 'log', '--l']), ['--limit']);
    assert.ok(complete(['cihub', '']).includes('completion'));
    assert.ok(complete(['cihub', 'api-key', '']).includes('revoke'));
  });

  it('zsh: the script parses, and offers each command with its description', async () => {
    assertInstalled('zsh', onPath('zsh'), 'command -v zsh >/dev/null 2>&1 || missing+=(zsh)');
    const file = await scriptFor('zsh');
    inShell('zsh', 'zsh -n $FILE', file);
    // compinit's functions stood in by their contracts: _describe prints the array it is given.
    const offered = inShell('zsh', 'compdef() { :; }; _describe() { print -l -- "${(@P)4}"; }; source $FILE; words=(cihub pool st); CURRENT=3; _cihub', file);
    assert.match(offered, /^status:whether pooling routes/m);
    assert.match(offered, /^--help:/m);
  });

  it('fish: completes subcommands with their descriptions', async () => {
    assertInstalled('fish', onPath('fish'), 'command -v fish >/dev/null 2>&1 || missing+=(fish)');
    const file = await scriptFor('fish');
    const offered = inShell('fish', 'source $FILE; complete -C "cihub pool st"; complete -C "cihub api-key list --"', file);
    assert.match(offered, /^status\twhether pooling routes/m);
    assert.match(offered, /^--json\t/m);
  });
});

describe('step lines', () => {
  it('cihub demo --once names each wait on a terminal', async () => {
    // script(1) gives the CLI a pseudo-terminal for stdin, stdout and stderr.
    const out = await new Promise<string>((resolve) => {
      const child = spawn('script', ['-qec', `${process.execPath} ${CIHUB_BIN} demo --once`, '/dev/null'], {
        env: { PATH: process.env.PATH ?? '', HOME: freshDataDir() },
      });
      let text = '';
      child.stdout.on('data', (d: Buffer) => (text += d.toString()));
      child.once('close', () => resolve(text));
    });
    assert.match(out, /… starting 3 Hubs on loopback/);
    assert.match(out, /… pairing the Hubs with PINs/);
  });

  it('and is silent when stderr is not a terminal', async () => {
    const res = await runCli(['demo', '--once'], { dataDir: freshDataDir(), dataDirFlag: false });
    assert.equal(res.code, 0, res.stderr);
    assert.doesNotMatch(res.stderr, /…/);
  });
});
