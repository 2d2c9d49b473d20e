/**
 * The version `cihub --version` prints: package.json's, read once from the installed package
 * (dist/src/cli/ is three levels below it), so it cannot drift from what npm installed.
 */
import { readFileSync } from 'node:fs';

export const CIHUB_VERSION: string = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
