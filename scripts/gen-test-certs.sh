#!/bin/sh
# Regenerates the TLS fixtures of the tests (test/fixtures/tls): a test CA, a
# server certificate for localhost/127.0.0.1 (two of them, for the reload
# test), an upstream certificate that names only "agent.internal" (SNI /
# servername override), a client certificate (CN=alice) for mTLS, and a
# client certificate from another CA (rejected). P-256 keys, valid 100 years.
# The files are committed so that tests need no openssl; run this only to
# replace them.
set -eu
out="$(dirname "$0")/../test/fixtures/tls"
mkdir -p "$out"
cd "$out"
days=36500
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
ca() { # name subject
  key "$1-key.pem"
  openssl req -x509 -new -key "$1-key.pem" -subj "$2" -days $days -out "$1.pem" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
}
leaf() { # name ca subject san usage
  key "$1-key.pem"
  openssl req -new -key "$1-key.pem" -subj "$3" -out "$1.csr"
  printf 'subjectAltName=%s\nextendedKeyUsage=%s\nbasicConstraints=CA:FALSE\n' "$4" "$5" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2-key.pem" -CAcreateserial -days $days -extfile "$1.ext" -out "$1.pem" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}
ca ca '/CN=a2a-gateway test CA'
ca other-ca '/CN=another test CA'
leaf server ca '/CN=localhost' 'DNS:localhost,IP:127.0.0.1' serverAuth
leaf server2 ca '/CN=localhost (renewed)' 'DNS:localhost,IP:127.0.0.1' serverAuth
leaf upstream ca '/CN=agent.internal' 'DNS:agent.internal' serverAuth
leaf client ca '/CN=alice' 'DNS:alice.example' clientAuth
leaf client2 ca '/CN=alice (renewed)' 'DNS:alice.example' clientAuth
leaf rogue-client other-ca '/CN=mallory' 'DNS:mallory.example' clientAuth
rm -f ./*.srl
