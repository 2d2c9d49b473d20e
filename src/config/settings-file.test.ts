import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HubError } from '../errors.js';
import { SETTINGS_FILE_NAME, SettingsFile, settingsCatalogue, settingsProblemText, type SettingsFileProblem } from './settings-file.js';
import { DEFAULT_SETTINGS, SETTING_RULES } from './settings-schema.js';

let root: string;

before(() => {
  root = mkdtempSync(join(tmpdir(), 'cihub-settings-'));
});
after(() => {
  rmSync(root, { recursive: true, force: true });
});

/** A fresh, empty data dir for one test. */
function freshDir(): string {
  return mkdtempSync(join(root, 'd-'));
}

const fileOf = (dir: string) => join(dir, SETTINGS_FILE_NAME);
const onDisk = (dir: string): unknown => JSON.parse(readFileSync(fileOf(dir), 'utf8'));

describe('SettingsFile on first start', () => {
  it('writes settings.json holding every default when there is none', () => {
    const dir = freshDir();
    const file = new SettingsFile(dir);
    assert.deepEqual(file.get(), DEFAULT_SETTINGS);
    assert.deepEqual(onDisk(dir), DEFAULT_SETTINGS);
  });

  it('leaves no temporary file behind and keeps the file private (0600)', () => {
    const dir = freshDir();
    new SettingsFile(dir);
    assert.deepEqual(readdirSync(dir), [SETTINGS_FILE_NAME]);
    assert.equal(statSync(fileOf(dir)).mode & 0o777, 0o600);
  });

  it('reads back what an earlier instance wrote', () => {
    const dir = freshDir();
    new SettingsFile(dir).patch({ poolLocalAffinity: 5, poolMaxPromptTokens: 32_000 });
    const reopened = new SettingsFile(dir);
    assert.equal(reopened.get().poolLocalAffinity, 5);
    assert.equal(reopened.get().poolMaxPromptTokens, 32_000);
  });
});

describe('SettingsFile.patch', () => {
  it('applies a valid PATCH in memory and on disk', () => {
    const dir = freshDir();
    const file = new SettingsFile(dir);
    const next = file.patch({ poolInboundEnabled: false, poolPressureWeight: 1.5 });
    assert.equal(next.poolInboundEnabled, false);
    assert.equal(next.poolPressureWeight, 1.5);
    assert.equal(file.get(), next);
    assert.deepEqual(onDisk(dir), { ...DEFAULT_SETTINGS, poolInboundEnabled: false, poolPressureWeight: 1.5 });
  });

  it('replaces the file by renaming a new one over it (a new inode), never rewriting it in place', () => {
    const dir = freshDir();
    const file = new SettingsFile(dir);
    const before = statSync(fileOf(dir)).ino;
    file.patch({ poolLocalAffinity: 2 });
    assert.notEqual(statSync(fileOf(dir)).ino, before);
    assert.deepEqual(readdirSync(dir), [SETTINGS_FILE_NAME]);
  });

  it('refuses a PATCH with one bad field whole: the file stays byte-identical and the settings unchanged', () => {
    const dir = freshDir();
    const file = new SettingsFile(dir);
    file.patch({ poolLocalAffinity: 3 });
    const bytes = readFileSync(fileOf(dir));
    const held = file.get();
    assert.throws(
      () => file.patch({ poolLocalAffinity: 7, poolHealthPollSeconds: 301 }),
      (err: unknown) => {
        assert.ok(err instanceof HubError);
        assert.equal(err.code, 'HUB_ERR_SETTINGS_INVALID');
        assert.equal(err.status, 400);
        assert.match(err.message, /poolHealthPollSeconds must be a whole number from 10 to 300/);
        assert.deepEqual(
          (err.details?.fields as { field: string }[]).map((f) => f.field),
          ['poolHealthPollSeconds'],
        );
        return true;
      },
    );
    assert.deepEqual(readFileSync(fileOf(dir)), bytes);
    assert.equal(file.get(), held);
    assert.equal(file.get().poolLocalAffinity, 3);
  });

  it('refuses pins through PATCH without touching the file', () => {
    const dir = freshDir();
    const file = new SettingsFile(dir);
    const bytes = readFileSync(fileOf(dir));
    assert.throws(() => file.patch({ poolPins: [{ scope: 'default', model: null, target: 'local' }] }), HubError);
    assert.deepEqual(readFileSync(fileOf(dir)), bytes);
  });

  it('hands out frozen settings and never changes an object already handed out', () => {
    const file = new SettingsFile(freshDir());
    const first = file.get();
    file.patch({ poolLocalAffinity: 9 });
    assert.equal(first.poolLocalAffinity, 1);
    assert.ok(Object.isFrozen(file.get()));
  });
});

/**
 * Runs `body` with fsync failing EIO on every directory descriptor, as a failing disk does,
 * while file descriptors sync as usual. syncBuiltinESMExports carries the patch to the named
 * export util/atomic-write calls.
 */
function withDirectoryFsyncFailing<T>(body: () => T): T {
  const original = fs.fsyncSync;
  fs.fsyncSync = (fd: number) => {
    if (fs.fstatSync(fd).isDirectory()) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    original(fd);
  };
  syncBuiltinESMExports();
  try {
    return body();
  } finally {
    fs.fsyncSync = original;
    syncBuiltinESMExports();
  }
}

describe('SettingsFile when something other than a file has taken the place of settings.json', () => {
  it('refuses the change 503, naming the file and what is wrong, keeps the settings in force, and writes once the place is free', () => {
    const dir = freshDir();
    const file = new SettingsFile(dir);
    rmSync(fileOf(dir));
    mkdirSync(fileOf(dir));
    assert.throws(
      () => file.patch({ poolLocalAffinity: 3 }),
      (err: unknown) =>
        err instanceof HubError &&
        err.code === 'HUB_ERR_STORE_UNAVAILABLE' &&
        err.message.startsWith("settings.json in this Hub's data dir cannot be replaced (EISDIR): something other than a file is in its place"),
    );
    assert.deepEqual(file.get(), DEFAULT_SETTINGS);
    assert.deepEqual(readdirSync(dir), [SETTINGS_FILE_NAME], 'no temporary file left beside it');
    rmSync(fileOf(dir), { recursive: true });
    file.patch({ poolLocalAffinity: 3 });
    assert.equal(JSON.parse(readFileSync(fileOf(dir), 'utf8')).poolLocalAffinity, 3);
  });
});

describe('SettingsFile when the directory sync after the rename fails', () => {
  it('keeps in force what is on disk, as the next start reads it, and reports the write unsynced instead of refusing it', () => {
    const dir = freshDir();
    const reported: SettingsFileProblem[] = [];
    const file = new SettingsFile(dir, (problem) => reported.push(problem));
    const next = withDirectoryFsyncFailing(() => file.patch({ poolLocalAffinity: 4 }));
    assert.equal(next.poolLocalAffinity, 4);
    assert.deepEqual(file.get(), onDisk(dir));
    assert.deepEqual(new SettingsFile(dir).get(), file.get());
    assert.deepEqual(reported, [{ kind: 'unsynced', path: fileOf(dir), error: 'EIO' }]);
    assert.match(settingsProblemText(reported[0]!), /settings\.json was replaced, but syncing its directory failed \(EIO\)/);
  });
});

describe('SettingsFile pins', () => {
  it('upserts by (scope, model): a second pin for the same model replaces the first', () => {
    const dir = freshDir();
    const file = new SettingsFile(dir);
    file.upsertPin({ scope: 'model', model: 'llama3.2:3b', target: 'core-1.tail.ts.net' });
    file.upsertPin({ scope: 'default', model: null, target: 'local' });
    file.upsertPin({ scope: 'model', model: 'llama3.2:3b', target: 'core-2.tail.ts.net' });
    assert.deepEqual(file.get().poolPins, [
      { scope: 'default', model: null, target: 'local' },
      { scope: 'model', model: 'llama3.2:3b', target: 'core-2.tail.ts.net' },
    ]);
    assert.deepEqual((onDisk(dir) as { poolPins: unknown }).poolPins, file.get().poolPins);
  });

  it('keys model pins verbatim, so ids differing only in case are two pins', () => {
    const file = new SettingsFile(freshDir());
    file.upsertPin({ scope: 'model', model: 'Qwen3:8b', target: 'local' });
    file.upsertPin({ scope: 'model', model: 'qwen3:8b', target: 'local' });
    assert.equal(file.get().poolPins.length, 2);
  });

  it('removes a pin by (scope, model) and says whether there was one', () => {
    const dir = freshDir();
    const file = new SettingsFile(dir);
    file.upsertPin({ scope: 'model', model: 'a/b:c', target: 'local' });
    file.upsertPin({ scope: 'default', model: null, target: 'local' });
    assert.equal(file.removePin('model', 'a/b:c'), true);
    assert.equal(file.removePin('model', 'a/b:c'), false);
    assert.deepEqual(file.get().poolPins, [{ scope: 'default', model: null, target: 'local' }]);
    assert.equal(file.removePin('default', null), true);
    assert.deepEqual(new SettingsFile(dir).get().poolPins, []);
  });

  it('treats a hand-written default pin without a model key as the default pin', () => {
    const dir = freshDir();
    writeFileSync(fileOf(dir), JSON.stringify({ poolPins: [{ scope: 'default', target: 'local' }] }));
    const file = new SettingsFile(dir);
    file.upsertPin({ scope: 'default', model: null, target: 'core-1.tail.ts.net' });
    assert.deepEqual(file.get().poolPins, [{ scope: 'default', model: null, target: 'core-1.tail.ts.net' }]);
    assert.equal(new SettingsFile(dir).removePin('default', null), true);
    writeFileSync(fileOf(dir), JSON.stringify({ poolPins: [{ scope: 'default', target: 'local' }] }));
    assert.equal(new SettingsFile(dir).removePin('default', null), true);
  });

  it('writes nothing when removing a pin that does not exist', () => {
    const dir = freshDir();
    const file = new SettingsFile(dir);
    const ino = statSync(fileOf(dir)).ino;
    assert.equal(file.removePin('model', 'nope'), false);
    assert.equal(statSync(fileOf(dir)).ino, ino);
  });
});

describe('SettingsFile reading a damaged settings.json', () => {
  it('gives defaults without throwing for a file that is not JSON, and says so', () => {
    const dir = freshDir();
    writeFileSync(fileOf(dir), '{"poolLocalAffinity": 4,,');
    const reported: SettingsFileProblem[] = [];
    const file = new SettingsFile(dir, (problem) => reported.push(problem));
    assert.deepEqual(file.get(), DEFAULT_SETTINGS);
    assert.equal(reported.length, 1);
    assert.equal(reported[0]?.kind === 'not-settings' && reported[0].fault, 'was not valid JSON');
  });

  it("keeps the damaged file beside the new one instead of overwriting the operator's edits", () => {
    const dir = freshDir();
    writeFileSync(fileOf(dir), '{"poolLocalAffinity": 4,,');
    new SettingsFile(dir);
    const aside = readdirSync(dir).filter((name) => name.startsWith('settings.json.invalid-'));
    assert.equal(aside.length, 1);
    assert.equal(readFileSync(join(dir, aside[0]!), 'utf8'), '{"poolLocalAffinity": 4,,');
    assert.deepEqual(JSON.parse(readFileSync(fileOf(dir), 'utf8')), DEFAULT_SETTINGS);
  });

  for (const text of ['[1,2]', 'null', '42', '"poolEnabled"']) {
    it(`treats ${text}, valid JSON but no object of settings, as a damaged file: named in a warning, moved aside, defaults used`, () => {
      const dir = freshDir();
      writeFileSync(fileOf(dir), text);
      const reported: SettingsFileProblem[] = [];
      const file = new SettingsFile(dir, (problem) => reported.push(problem));
      assert.deepEqual(file.get(), DEFAULT_SETTINGS);
      assert.equal(reported.length, 1);
      assert.match(
        settingsProblemText(reported[0]!),
        new RegExp(`^${fileOf(dir)} held .*, not a JSON object of settings; kept as ${fileOf(dir)}\\.invalid-\\d+, defaults used$`),
      );
      const aside = readdirSync(dir).filter((name) => name.startsWith('settings.json.invalid-'));
      assert.equal(aside.length, 1);
      assert.equal(readFileSync(join(dir, aside[0]!), 'utf8'), text);
      assert.deepEqual(onDisk(dir), DEFAULT_SETTINGS);
    });
  }

  it('reports a settings.json it could not read by its error, leaves it where it is, and refuses to write over it', () => {
    const dir = freshDir();
    mkdirSync(fileOf(dir));
    const reported: SettingsFileProblem[] = [];
    const file = new SettingsFile(dir, (problem) => reported.push(problem));
    assert.deepEqual(file.get(), DEFAULT_SETTINGS);
    assert.equal(reported.length, 1);
    assert.deepEqual(reported, [{ kind: 'unreadable', path: fileOf(dir), error: 'EISDIR' }]);
    assert.deepEqual(readdirSync(dir), [SETTINGS_FILE_NAME], 'nothing renamed aside, nothing written beside it');
    assert.ok(statSync(fileOf(dir)).isDirectory());
    assert.throws(
      () => file.patch({ poolLocalAffinity: 3 }),
      (err: unknown) =>
        err instanceof HubError && err.code === 'HUB_ERR_STORE_UNAVAILABLE' && /could not be read when this Hub started \(EISDIR\)/.test(err.message),
    );
    assert.deepEqual(file.get(), DEFAULT_SETTINGS);
  });

  it('keeps the good keys of a hand-edited file and reports the ones it ignored, each with what was wrong', () => {
    const dir = freshDir();
    // poolHealthPollSecs: a misspelt key was reported as a value outside its rule, and the rule was not said.
    writeFileSync(fileOf(dir), JSON.stringify({ poolLocalAffinity: 4, poolHealthPollSeconds: 'often', poolHealthPollSecs: 20 }));
    const reported: SettingsFileProblem[] = [];
    const file = new SettingsFile(dir, (problem) => reported.push(problem));
    assert.equal(file.get().poolLocalAffinity, 4);
    assert.equal(file.get().poolHealthPollSeconds, 30);
    assert.deepEqual(reported, [
      {
        kind: 'ignored-keys',
        keys: ['poolHealthPollSeconds'],
        problems: ['poolHealthPollSeconds must be a whole number from 10 to 300; got "often"'],
        rewritten: false,
      },
      { kind: 'unknown-keys', keys: ['poolHealthPollSecs'] },
    ]);
    assert.equal(
      settingsProblemText(reported[0]!),
      'settings.json had values the Hub could not use, so each takes its default and a bad pin is left out (fix them in the file and restart: the next change of a setting rewrites the file without them): poolHealthPollSeconds must be a whole number from 10 to 300; got "often"',
    );
    assert.equal(
      settingsProblemText(reported[1]!),
      "settings.json has a key this cihub has no setting for, left unused: poolHealthPollSecs. Each may be a newer cihub's setting, kept in the file as it is when a change rewrites the file, or a typo to remove from the file",
    );
  });

  it('says so once the first change has rewritten the file without the keys it ignored, and only then', () => {
    const dir = freshDir();
    writeFileSync(fileOf(dir), JSON.stringify({ poolHealthPollSeconds: 'often' }));
    const reported: SettingsFileProblem[] = [];
    const file = new SettingsFile(dir, (problem) => reported.push(problem));
    assert.throws(() => file.patch({ poolHealthPollSeconds: 5 }), HubError);
    assert.equal(reported.length, 1, 'a refused change writes nothing, so the keys are still in the file');
    file.patch({ poolLocalAffinity: 2 });
    assert.deepEqual(reported[1], {
      kind: 'ignored-keys',
      keys: ['poolHealthPollSeconds'],
      problems: ['poolHealthPollSeconds must be a whole number from 10 to 300; got "often"'],
      rewritten: true,
    });
    assert.equal(
      settingsProblemText(reported[1]!),
      'settings.json had values the Hub could not use, and a change of a setting has since rewritten the file without them: each of those keys holds its default and a bad pin is gone (set them again to use them): poolHealthPollSeconds must be a whole number from 10 to 300; got "often"',
    );
    assert.ok(!readFileSync(fileOf(dir), 'utf8').includes('often'));
    file.patch({ poolLocalAffinity: 3 });
    assert.equal(reported.length, 2, 'said once');
  });

  it('quotes at most a line of an ignored value', () => {
    const dir = freshDir();
    writeFileSync(fileOf(dir), JSON.stringify({ poolPins: [{ scope: 'model', target: 'x'.repeat(500) }] }));
    const reported: SettingsFileProblem[] = [];
    new SettingsFile(dir, (problem) => reported.push(problem));
    const problem = reported[0]?.kind === 'ignored-keys' ? reported[0].problems[0]! : '';
    assert.match(problem, /^poolPins\[0\] must be \{ "scope": "model", .*; got \{"scope":"model","target":"x+\.\.\.$/);
    assert.ok(problem.length < 300, problem);
  });

  it('keeps the good pins of a list holding a bad one, and leaves the bad one out of the file at the next change', () => {
    const dir = freshDir();
    const good = [
      { scope: 'model', model: 'qwen3:8b', target: 'local' },
      { scope: 'default', model: null, target: 'hub-b.tail0.ts.net' },
    ];
    writeFileSync(fileOf(dir), JSON.stringify({ poolPins: [good[0], { scope: 'model', model: '', target: 'local' }, good[1]] }));
    const reported: SettingsFileProblem[] = [];
    const file = new SettingsFile(dir, (problem) => reported.push(problem));
    assert.deepEqual(file.get().poolPins, good);
    assert.equal(reported[0]?.kind === 'ignored-keys' && reported[0].keys.join(), 'poolPins[1]');
    file.patch({ poolLocalAffinity: 2 });
    assert.deepEqual((JSON.parse(readFileSync(fileOf(dir), 'utf8')) as { poolPins: unknown }).poolPins, good);
  });

  it('does not rewrite a readable file on open', () => {
    const dir = freshDir();
    const text = JSON.stringify({ poolLocalAffinity: 4 });
    writeFileSync(fileOf(dir), text);
    new SettingsFile(dir);
    assert.equal(readFileSync(fileOf(dir), 'utf8'), text);
  });
});

describe("SettingsFile and keys this build has no setting for (a newer cihub's, after a downgrade, or a typo)", () => {
  /** settings.json as a newer cihub writes it: its own keys among ours, through the same JSON.stringify. */
  const NEWER_FILE = `${JSON.stringify(
    {
      poolEnabled: true,
      poolFutureRouting: { mode: 'latency', weights: [0.25, 1e-7, -3], note: 'caf\u00e9 "quoted" \\ tab\t', nested: { empty: {}, none: null } },
      poolLocalAffinity: 4,
      poolFutureLimit: 12345.678,
      poolFutureFlag: false,
    },
    null,
    2,
  )}\n`;
  /** Each newer key's line (and the lines of its value) exactly as the newer cihub wrote them. */
  const newerValueText = (text: string, key: string): string => {
    const start = text.indexOf(`  "${key}": `);
    assert.ok(start >= 0, `${key} is in the file:\n${text}`);
    const rest = text.slice(start);
    const end = rest.search(/\n {2}"|\n\}/);
    return rest.slice(0, end).replace(/,$/, '');
  };
  const NEWER_KEYS = ['poolFutureRouting', 'poolFutureLimit', 'poolFutureFlag'];

  it('keeps each one in the file, its value byte for byte, through a PATCH, a pin set and a pin removed', () => {
    const dir = freshDir();
    writeFileSync(fileOf(dir), NEWER_FILE);
    const file = new SettingsFile(dir);
    assert.equal(file.get().poolLocalAffinity, 4, 'the keys it knows are read as ever');
    file.patch({ poolHealthPollSeconds: 45 });
    file.upsertPin({ scope: 'default', model: null, target: 'local' });
    assert.equal(file.removePin('default', null), true);
    const written = readFileSync(fileOf(dir), 'utf8');
    for (const key of NEWER_KEYS) assert.equal(newerValueText(written, key), newerValueText(NEWER_FILE, key), key);
    const doc = JSON.parse(written) as Record<string, unknown>;
    assert.equal(doc.poolHealthPollSeconds, 45, 'the change itself is written');
    assert.deepEqual(Object.keys(doc).slice(0, 5), Object.keys(JSON.parse(NEWER_FILE) as object), 'each where the file had it');
  });

  it('keeps the order of the file on disk through every write: known keys changed in place, kept keys where they were, new ones after', () => {
    const dir = freshDir();
    // Arranged by hand: kept keys among the settings, and the settings out of the catalogue's order.
    writeFileSync(
      fileOf(dir),
      [
        '{',
        '  "poolFutureRatio": 1.50,',
        '  "poolHealthPollSeconds": 20,',
        '  "poolFutureFlag": true,',
        '  "poolEnabled": true,',
        '  "poolLocalAffinity": 3',
        '}',
        '',
      ].join('\n'),
    );
    const file = new SettingsFile(dir);
    const order = ['poolFutureRatio', 'poolHealthPollSeconds', 'poolFutureFlag', 'poolEnabled', 'poolLocalAffinity'];
    const added = Object.keys(DEFAULT_SETTINGS).filter((key) => !order.includes(key));
    file.patch({ poolLocalAffinity: 2, poolEnabled: false });
    let doc = onDisk(dir) as Record<string, unknown>;
    assert.deepEqual(Object.keys(doc), [...order, ...added], "the file's keys in its order, then the settings it did not have, in the catalogue's order");
    assert.deepEqual([doc.poolFutureRatio, doc.poolHealthPollSeconds, doc.poolFutureFlag, doc.poolEnabled, doc.poolLocalAffinity], [1.5, 20, true, false, 2]);
    file.upsertPin({ scope: 'default', model: null, target: 'local' });
    file.patch({ poolHealthPollSeconds: 45 });
    doc = onDisk(dir) as Record<string, unknown>;
    assert.deepEqual(Object.keys(doc), [...order, ...added], 'the same order after later writes');
    assert.equal(doc.poolHealthPollSeconds, 45);
  });

  it('goes on not using them after the write, and a reopened file reads and keeps them the same way', () => {
    const dir = freshDir();
    writeFileSync(fileOf(dir), NEWER_FILE);
    new SettingsFile(dir).patch({ poolLocalAffinity: 2 });
    const reported: SettingsFileProblem[] = [];
    const reopened = new SettingsFile(dir, (problem) => reported.push(problem));
    assert.ok(!Object.hasOwn(reopened.get(), 'poolFutureLimit'));
    assert.deepEqual(reported, [{ kind: 'unknown-keys', keys: NEWER_KEYS }]);
    reopened.patch({ poolLocalAffinity: 3 });
    for (const key of NEWER_KEYS) assert.equal(newerValueText(readFileSync(fileOf(dir), 'utf8'), key), newerValueText(NEWER_FILE, key), key);
  });

  it("warns once, naming them as a newer cihub's settings or typos, and never says a write removed them", () => {
    const dir = freshDir();
    writeFileSync(fileOf(dir), NEWER_FILE);
    const reported: SettingsFileProblem[] = [];
    const file = new SettingsFile(dir, (problem) => reported.push(problem));
    file.patch({ poolLocalAffinity: 2 });
    assert.deepEqual(reported, [{ kind: 'unknown-keys', keys: NEWER_KEYS }], 'nothing more after the write');
    assert.equal(
      settingsProblemText(reported[0]!),
      "settings.json has keys this cihub has no setting for, left unused: poolFutureRouting, poolFutureLimit, poolFutureFlag. Each may be a newer cihub's setting, kept in the file as it is when a change rewrites the file, or a typo to remove from the file",
    );
  });

  it('still drops a bad value of a key it knows at the next write, beside the kept ones', () => {
    const dir = freshDir();
    writeFileSync(fileOf(dir), JSON.stringify({ poolHealthPollSeconds: 'often', poolFutureFlag: true }));
    const reported: SettingsFileProblem[] = [];
    const file = new SettingsFile(dir, (problem) => reported.push(problem));
    file.patch({ poolLocalAffinity: 2 });
    const doc = JSON.parse(readFileSync(fileOf(dir), 'utf8')) as Record<string, unknown>;
    assert.equal(doc.poolHealthPollSeconds, 30);
    assert.equal(doc.poolFutureFlag, true);
    assert.deepEqual(
      reported.map((p) => (p.kind === 'ignored-keys' ? `${p.kind} ${p.keys.join()} ${p.rewritten}` : p.kind)),
      ['ignored-keys poolHealthPollSeconds false', 'unknown-keys', 'ignored-keys poolHealthPollSeconds true'],
    );
  });

  it('keeps a key named __proto__ as a key of the file', () => {
    const dir = freshDir();
    writeFileSync(fileOf(dir), '{"__proto__": {"poolLocalAffinity": 9}, "poolEnabled": true}');
    const file = new SettingsFile(dir);
    assert.equal(file.get().poolLocalAffinity, 1, "read as no setting, never as the settings' prototype");
    file.patch({ poolLocalAffinity: 2 });
    assert.match(readFileSync(fileOf(dir), 'utf8'), /^\{\n {2}"__proto__": \{\n {4}"poolLocalAffinity": 9\n {2}\},\n {2}"poolEnabled": true,\n/);
  });

  it('still refuses such a key sent in a PATCH, and writes nothing', () => {
    const dir = freshDir();
    writeFileSync(fileOf(dir), NEWER_FILE);
    const file = new SettingsFile(dir);
    assert.throws(
      () => file.patch({ poolFutureFlag: true }),
      (err: unknown) => err instanceof HubError && err.code === 'HUB_ERR_SETTINGS_INVALID' && /^poolFutureFlag is not a setting/.test(err.message),
    );
    assert.equal(readFileSync(fileOf(dir), 'utf8'), NEWER_FILE);
  });
});

describe('settingsCatalogue', () => {
  it('lists every setting with its default and a readable range', () => {
    const catalogue = settingsCatalogue();
    assert.deepEqual(
      catalogue.map((e) => e.key),
      Object.keys(SETTING_RULES),
    );
    const ceiling = catalogue.find((e) => e.key === 'poolMaxPromptTokens');
    assert.deepEqual(ceiling, { key: 'poolMaxPromptTokens', default: null, range: 'a whole number from 1024 to 1048576, or null' });
  });
});
