#!/usr/bin/env bash
# Builds guardstream's container images from this checkout, with no registry:
#
#   deploy/build.sh            # tags :dev
#   TAG=0.1.0 deploy/build.sh
#
# The binaries are compiled here, static (CGO_ENABLED=0), and copied into
# images FROM scratch:
#   guardstream/nats-server:$TAG     nats-server from the Go module in go.mod, with deploy/nats/nats.conf
#   guardstream/guard-consumer:$TAG   also what makes a deployment's credentials: guard-consumer creds setup
#   guardstream/emitter-demo:$TAG
set -euo pipefail
cd "$(dirname "$0")/.."
tag=${TAG:-dev}
context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT

echo "== compiling static binaries"
CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags='-s -w' -o "$context/bin/" \
	./cmd/guard-consumer ./cmd/emitter-demo github.com/nats-io/nats-server/v2
cp deploy/nats/nats.conf "$context/"
mkdir "$context/data"
# The mount points of the credentials volumes in the guard-consumer image.
mkdir -p "$context/auth/"{private,nats,guard,agent}
chmod 700 "$context/auth/"*

for image in nats-server guard-consumer emitter-demo; do
	echo "== guardstream/$image:$tag"
	docker build --quiet -f "deploy/docker/$image.Dockerfile" -t "guardstream/$image:$tag" "$context"
done
