#!/bin/sh
# gen-tls.sh makes a certificate authority and a server certificate for a
# test or staging deployment: tls/ca.pem, tls/server-cert.pem and
# tls/server-key.pem in the current directory. Production uses the
# organisation's CA instead.
#
#   sh gen-tls.sh nats.example.internal 10.0.0.5
#
# Every argument is a DNS name or an IP address the server is reached at;
# localhost and 127.0.0.1 are always included.
set -eu
mkdir -p tls
cd tls
san="DNS:localhost,IP:127.0.0.1"
for name in "$@"; do
  case "$name" in
    *[!0-9.:]*) san="$san,DNS:$name" ;;
    *) san="$san,IP:$name" ;;
  esac
done
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 365 \
  -subj "/CN=guardstream CA" -keyout ca-key.pem -out ca.pem
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
  -subj "/CN=guardstream NATS" -keyout server-key.pem -out server.csr
printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\n' "$san" > server.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial \
  -days 365 -extfile server.ext -out server-cert.pem
rm -f server.csr server.ext ca.srl
chmod 600 ca-key.pem server-key.pem
echo "tls/: ca.pem (give it to clients as -tls-ca), server-cert.pem, server-key.pem; keep ca-key.pem offline"
