// Real certificates for the TLS tests, made by openssl: a CA, a server certificate it signed for
// localhost / 127.0.0.1 / ::1, a client certificate for mutual TLS, and the wrong ones (another
// CA, another host name, an expired certificate) that clients must refuse.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureDebianProgram } from "./apt.js";

export interface CertificateFiles {
  dir: string;
  ca: string;
  /** A CA that signed nothing the server uses. */
  otherCa: string;
  serverCert: string;
  serverKey: string;
  /** Signed by `ca` for the name wrong.example only. */
  wrongHostCert: string;
  wrongHostKey: string;
  /** Signed by `ca` for localhost, expired a day before it was made. */
  expiredCert: string;
  expiredKey: string;
  /** A second server certificate by `ca` for localhost (for rotation), its own key. */
  nextCert: string;
  nextKey: string;
  clientCert: string;
  clientKey: string;
}

const openssl = (dir: string, ...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });

function makeCa(dir: string, name: string): void {
  openssl(dir, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.pem`, "-days", "2", "-subj", `/CN=${name} test CA`);
}

/** A key and a certificate signed by ca.pem with these subject alternative names; `days` may be negative (expired). */
function issue(dir: string, name: string, altNames: string, options: { days?: number; client?: boolean } = {}): void {
  openssl(dir, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${name}`);
  const extensions = [`subjectAltName=${altNames}`, `extendedKeyUsage=${options.client ? "clientAuth" : "serverAuth"}`, "basicConstraints=CA:FALSE"].join("\n");
  writeFileSync(join(dir, `${name}.ext`), `${extensions}\n`);
  openssl(dir, "x509", "-req", "-in", `${name}.csr`, "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", `${name}.pem`, "-days", String(options.days ?? 2), "-extfile", `${name}.ext`);
}

export function makeCertificates(): CertificateFiles {
  ensureDebianProgram("openssl", "/usr/bin/openssl", "the TLS tests' certificates");
  const dir = mkdtempSync(join(tmpdir(), "apigen-tls-"));
  makeCa(dir, "ca");
  makeCa(dir, "other-ca");
  const localhost = "DNS:localhost,IP:127.0.0.1,IP:::1";
  issue(dir, "server", localhost);
  issue(dir, "next", localhost);
  issue(dir, "wrong-host", "DNS:wrong.example");
  issue(dir, "expired", localhost, { days: -1 });
  issue(dir, "client", "DNS:client.test", { client: true });
  const file = (name: string) => join(dir, name);
  return {
    dir,
    ca: file("ca.pem"),
    otherCa: file("other-ca.pem"),
    serverCert: file("server.pem"),
    serverKey: file("server.key"),
    wrongHostCert: file("wrong-host.pem"),
    wrongHostKey: file("wrong-host.key"),
    expiredCert: file("expired.pem"),
    expiredKey: file("expired.key"),
    nextCert: file("next.pem"),
    nextKey: file("next.key"),
    clientCert: file("client.pem"),
    clientKey: file("client.key"),
  };
}
