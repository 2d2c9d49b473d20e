import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { removeLeftoverTemporaryFiles, writeFileAtomic, type AtomicWriteFs } from './atomic-write.js';

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'cihub-atomic-'));
});
after(() => {
  rmSync(root, { recursive: true, force: true });
});
const freshDir = () => mkdtempSync(join(root, 'd-'));

/** node:fs with every call recorded (paths as given, descriptors by what they were opened on), and one call made to fail. */
function recordingFs(failOn?: keyof AtomicWriteFs): { fs: AtomicWriteFs; calls: string[] } {
  const calls: string[] = [];
  const opened = new Map<number, string>();
  const maybeFail = (name: keyof AtomicWriteFs) => {
    if (name === failOn) throw Object.assign(new Error(`${name} failed`), { code: 'ENOSPC' });
  };
  return {
    calls,
    fs: {
      openSync: (p, flags, mode) => {
        const fd = fs.openSync(p, flags, mode);
        opened.set(fd, p);
        calls.push(`open ${p} ${flags}`);
        return fd;
      },
      writeSync: (fd, data) => {
        calls.push(`write ${opened.get(fd)}`);
        maybeFail('writeSync');
        return fs.writeSync(fd, data);
      },
      fsyncSync: (fd) => {
        calls.push(`fsync ${opened.get(fd)}`);
        fs.fsyncSync(fd);
      },
      closeSync: (fd) => {
        calls.push(`close ${opened.get(fd)}`);
        fs.closeSync(fd);
      },
      renameSync: (a, b) => {
        calls.push(`rename ${a} -> ${b}`);
        maybeFail('renameSync');
        fs.renameSync(a, b);
      },
      linkSync: (a, b) => {
        calls.push(`link ${a} -> ${b}`);
        fs.linkSync(a, b);
      },
      unlinkSync: (p) => {
        calls.push(`unlink ${p}`);
        fs.unlinkSync(p);
      },
    },
  };
}

describe('writeFileAtomic', () => {
  it('writes the whole file, owner-only by default, and leaves nothing else in the directory', () => {
    const dir = freshDir();
    const path = join(dir, 'settings.json');
    writeFileAtomic(path, '{"a":1}\n');
    assert.equal(readFileSync(path, 'utf8'), '{"a":1}\n');
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dir), ['settings.json']);
  });

  it('replaces an existing file whole, with the mode it is given', () => {
    const dir = freshDir();
    const path = join(dir, 'model.gguf');
    writeFileSync(path, 'old contents that are longer than the new ones');
    writeFileAtomic(path, Buffer.from('new'), { mode: 0o644 });
    assert.equal(readFileSync(path, 'utf8'), 'new');
    assert.equal(statSync(path).mode & 0o777, 0o644);
  });

  it('syncs the data before the rename and the directory after it', () => {
    const dir = freshDir();
    const path = join(dir, 'hub.json');
    const { fs: rec, calls } = recordingFs();
    assert.equal(writeFileAtomic(path, 'x', { fs: rec }), null, 'nothing left undurable');
    const tmp = calls[0]!.split(' ')[1]!;
    assert.equal(resolve(tmp, '..'), resolve(dir), 'the temporary file is beside the target, so the rename never crosses a file system');
    assert.deepEqual(calls, [
      `open ${tmp} wx`,
      `write ${tmp}`,
      `fsync ${tmp}`,
      `close ${tmp}`,
      `rename ${tmp} -> ${path}`,
      `open ${dir} r`,
      `fsync ${dir}`,
      `close ${dir}`,
    ]);
  });

  for (const failOn of ['writeSync', 'renameSync'] as const) {
    it(`keeps the previous file and removes its temporary file when ${failOn} fails`, () => {
      const dir = freshDir();
      const path = join(dir, 'operator.key');
      writeFileSync(path, 'previous\n');
      const { fs: rec } = recordingFs(failOn);
      assert.throws(() => writeFileAtomic(path, 'next\n', { fs: rec }), /failed/);
      assert.equal(readFileSync(path, 'utf8'), 'previous\n');
      assert.deepEqual(readdirSync(dir), ['operator.key']);
    });
  }

  it('counts the write done when the directory sync after the rename fails, answering what it could not make durable', () => {
    const dir = freshDir();
    const path = join(dir, 'settings.json');
    writeFileSync(path, 'previous\n');
    const { fs: rec } = recordingFs();
    const failingDirSync: AtomicWriteFs = {
      ...rec,
      fsyncSync: (fd) => {
        if (fs.fstatSync(fd).isDirectory()) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
        rec.fsyncSync(fd);
      },
    };
    assert.deepEqual(writeFileAtomic(path, 'next\n', { fs: failingDirSync }), { path, error: 'EIO' });
    assert.equal(readFileSync(path, 'utf8'), 'next\n', 'the rename happened, so readers see the new file');
    assert.deepEqual(readdirSync(dir), ['settings.json']);
  });

  describe('exclusive (create only)', () => {
    it('creates the file when it is absent, synced and linked into place', () => {
      const dir = freshDir();
      const path = join(dir, 'identity.secret');
      const { fs: rec, calls } = recordingFs();
      writeFileAtomic(path, 'secret\n', { exclusive: true, fs: rec });
      assert.equal(readFileSync(path, 'utf8'), 'secret\n');
      assert.deepEqual(readdirSync(dir), ['identity.secret']);
      const link = calls.findIndex((c) => c.startsWith('link '));
      assert.ok(calls.findIndex((c) => c.startsWith('fsync ')) < link && calls.lastIndexOf(`fsync ${dir}`) > link);
    });

    it('refuses with EEXIST when another process created it first, and leaves that file as it was', () => {
      const dir = freshDir();
      const path = join(dir, 'identity.secret');
      writeFileSync(path, 'theirs\n');
      assert.throws(() => writeFileAtomic(path, 'mine\n', { exclusive: true }), { code: 'EEXIST' });
      assert.equal(readFileSync(path, 'utf8'), 'theirs\n');
      assert.deepEqual(readdirSync(dir), ['identity.secret']);
    });
  });
});

describe('removeLeftoverTemporaryFiles', () => {
  /** Runs writeFileAtomic in a node process that is killed (SIGKILL) where it would rename: the state a crash mid-write leaves. */
  function killedMidWrite(path: string): void {
    const script = `
      import * as fs from 'node:fs';
      const { writeFileAtomic } = await import(${JSON.stringify(join(import.meta.dirname, 'atomic-write.js'))});
      writeFileAtomic(${JSON.stringify(path)}, 'new\\n', { fs: { ...fs, renameSync: () => process.kill(process.pid, 'SIGKILL') } });`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script]);
    assert.equal(run.signal, 'SIGKILL', run.stderr.toString());
  }

  it('removes the temporary file of a write killed before its rename, and nothing else', () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'settings.json'), 'old\n');
    killedMidWrite(join(dir, 'settings.json'));
    const [leftover, ...others] = readdirSync(dir).filter((name) => name !== 'settings.json');
    assert.ok(leftover !== undefined && others.length === 0, 'the killed write left one temporary file');
    const unrelated = ['.notes.tmp', 'backup.4242.0badf00d.tmp', '.hub.db.1.xyz.tmp'];
    for (const name of unrelated) writeFileSync(join(dir, name), '');

    assert.deepEqual(removeLeftoverTemporaryFiles(dir), [leftover]);
    assert.deepEqual(readdirSync(dir).sort(), [...unrelated, 'settings.json'].sort());
    assert.equal(readFileSync(join(dir, 'settings.json'), 'utf8'), 'old\n');
  });
});

describe('one helper writes the files the Hub owns', () => {
  /** Every .ts under src (not tests) that writes or renames a file by hand. */
  function handWrittenReplacements(dir: string, out: string[] = []): string[] {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) handWrittenReplacements(path, out);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && entry.name !== 'atomic-write.ts') {
        const text = readFileSync(path, 'utf8');
        if (/\b(writeFileSync|writeFile)\s*\(|\brenameSync\s*\(\s*(tmp|temp)/.test(text)) out.push(path);
      }
    }
    return out;
  }

  it('no module under src writes a file or renames a temporary file itself', () => {
    // Compiled to dist/src/util; the sources are three levels up from there.
    const srcDir = resolve(import.meta.dirname, '../../../src');
    assert.deepEqual(handWrittenReplacements(srcDir), []);
  });
});
