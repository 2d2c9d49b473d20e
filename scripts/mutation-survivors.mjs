#!/usr/bin/env node
// Re-checks the survivors of a finished mutation run against the tests as they are now, without a
// whole new Stryker run (docs/testing.md): each Survived / NoCoverage mutant in the JSON report is
// written into its source, that one file is transpiled over its compiled copy in dist/, and the
// test file beside it is run. Prints KILLED or SURVIVES per mutant; dist/ is restored at the end.
// Build first (npx tsc -p tsconfig.json). Unlike Stryker it runs only the test file beside the
// source and does not type-check the mutant.
//   node scripts/mutation-survivors.mjs reports/mutation/mutation.json [path-substring ...]
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import ts from 'typescript';
/**
 * Runs a test file and says whether it failed, by its exit status: a mutant that makes the test
 * run crash, or print more than spawnSync's default 1 MB of output (which cut the summary line
 * off and once read as a survivor), is killed all the same.
 */
function testFails(test) {
  const res = spawnSync(process.execPath, ['--test', test], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  return res.status !== 0;
}
const [report, ...only] = process.argv.slice(2);
const r = JSON.parse(fs.readFileSync(report, 'utf8'));
for (const [file, f] of Object.entries(r.files)) {
  if (only.length && !only.some((o) => file.includes(o))) continue;
  const src = fs.readFileSync(file, 'utf8');
  const out = 'dist/' + file.replace(/\.ts$/, '.js');
  const test = out.replace(/\.js$/, '.test.js');
  const orig = fs.readFileSync(out, 'utf8');
  const lines = src.split('\n');
  const offset = (p) => lines.slice(0, p.line - 1).reduce((n, l) => n + l.length + 1, 0) + p.column - 1;
  {
    const js = ts.transpileModule(src, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 }, fileName: file }).outputText;
    fs.writeFileSync(out, js);
    console.log(`control (unmutated) ${file}: ${testFails(test) ? 'FAILS (fix this before reading the rest)' : 'passes'}`);
  }
  for (const m of f.mutants.filter((m) => m.status === 'Survived' || m.status === 'NoCoverage')) {
    const mutated = src.slice(0, offset(m.location.start)) + m.replacement + src.slice(offset(m.location.end));
    const js = ts.transpileModule(mutated, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 }, fileName: file }).outputText;
    fs.writeFileSync(out, js);
    console.log(
      `${testFails(test) ? 'KILLED  ' : 'SURVIVES'} ${file}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName} -> ${m.replacement.replace(/\s+/g, ' ').slice(0, 90)}`,
    );
  }
  fs.writeFileSync(out, orig);
}
