/**
 * Certificates made in the test: a CA of the test's own, a certificate it signs for localhost and
 * 127.0.0.1 (in date, or expired), and a self-signed one. Keys by node:crypto, certificates by
 * node-forge (which can date them in the past).
 */
import { generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';

export interface KeyAndCert {
  key: string;
  cert: string;
}

const keyPair = () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = { key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), pub: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
  return { pem, forgeKey: forge.pki.privateKeyFromPem(pem.key), forgePub: forge.pki.publicKeyFromPem(pem.pub) };
};

let serial = 1;

const certificate = (subject: string, pub: forge.pki.PublicKey, issuer: { name: string; key: forge.pki.PrivateKey }, notBefore: Date, notAfter: Date, ca: boolean): string => {
  const cert = forge.pki.createCertificate();
  cert.publicKey = pub;
  cert.serialNumber = (serial++).toString(16).padStart(2, '0');
  cert.validity.notBefore = notBefore;
  cert.validity.notAfter = notAfter;
  cert.setSubject([{ name: 'commonName', value: subject }]);
  cert.setIssuer([{ name: 'commonName', value: issuer.name }]);
  cert.setExtensions(
    ca
      ? [{ name: 'basicConstraints', cA: true }, { name: 'keyUsage', keyCertSign: true, cRLSign: true }]
      : [{ name: 'basicConstraints', cA: false }, { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] }],
  );
  cert.sign(issuer.key as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
};

const DAY = 86_400_000;

/** A CA and certificates for localhost/127.0.0.1: `valid` (signed by the CA, a year), `expiring` (5 days left), `expired`, and `selfSigned`. */
export const makeCertificates = () => {
  const caKeys = keyPair();
  const now = Date.now();
  const ca = certificate('cardgate test CA', caKeys.forgePub, { name: 'cardgate test CA', key: caKeys.forgeKey }, new Date(now - DAY), new Date(now + 400 * DAY), true);
  const leaf = (from: number, to: number): KeyAndCert => {
    const keys = keyPair();
    return { key: keys.pem.key, cert: certificate('localhost', keys.forgePub, { name: 'cardgate test CA', key: caKeys.forgeKey }, new Date(from), new Date(to), false) };
  };
  const own = keyPair();
  return {
    ca,
    valid: leaf(now - DAY, now + 365 * DAY),
    expiring: leaf(now - DAY, now + 5 * DAY + DAY / 2),
    expired: leaf(now - 60 * DAY, now - 30 * DAY),
    selfSigned: { key: own.pem.key, cert: certificate('localhost', own.forgePub, { name: 'localhost', key: own.forgeKey }, new Date(now - DAY), new Date(now + 365 * DAY), false) },
  };
};
