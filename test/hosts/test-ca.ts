/**
 * A certificate authority made for one run, and a certificate from it for each host's name, as
 * Tailscale's HTTPS certificates are issued for <machine>.<tailnet>.ts.net. Every Hub is told to
 * trust it through NODE_EXTRA_CA_CERTS, and the test runner through its own dispatcher, so TLS
 * is verified for real: a name that is not on the certificate fails the handshake.
 *
 * Made with the openssl command line: Node's crypto makes keys but cannot write an X.509
 * certificate, and the npm libraries that can (node-forge, @peculiar/x509) would be a new
 * dependency for a tool every Linux CI image already has. Keys are P-256, valid one day.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './system-commands.js';

export interface TestCa {
  /** The CA certificate (PEM file), for NODE_EXTRA_CA_CERTS. */
  readonly certPath: string;
  readonly certPem: string;
  /** Issues a server certificate for `name` (its only subject alternative name). */
  issue(name: string): { readonly certPath: string; readonly keyPath: string };
}

const VALID_DAYS = '1';
const KEY_ARGS = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

export function makeTestCa(dir: string): TestCa {
  const certPath = join(dir, 'ca.pem');
  const keyPath = join(dir, 'ca.key');
  run('openssl', [
    'req',
    '-x509',
    ...KEY_ARGS,
    '-keyout',
    keyPath,
    '-out',
    certPath,
    '-days',
    VALID_DAYS,
    '-subj',
    '/CN=cihub hosts harness test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  let serial = 0;
  return {
    certPath,
    certPem: readFileSync(certPath, 'utf8'),
    issue(name) {
      serial += 1;
      const base = join(dir, name);
      const ext = `${base}.ext`;
      writeFileSync(
        ext,
        [`subjectAltName=DNS:${name}`, 'basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature', 'extendedKeyUsage=serverAuth', ''].join(
          '\n',
        ),
      );
      run('openssl', ['req', ...KEY_ARGS, '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', `/CN=${name}`]);
      run('openssl', [
        'x509',
        '-req',
        '-in',
        `${base}.csr`,
        '-CA',
        certPath,
        '-CAkey',
        keyPath,
        '-set_serial',
        String(serial),
        '-days',
        VALID_DAYS,
        '-extfile',
        ext,
        '-out',
        `${base}.pem`,
      ]);
      return { certPath: `${base}.pem`, keyPath: `${base}.key` };
    },
  };
}
