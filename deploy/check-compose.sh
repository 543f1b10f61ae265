#!/usr/bin/env bash
# Runs deploy/compose.yaml as a user would, after deploy/build.sh, and checks
# what it must show: the demo fleet's decisions, made with its own
# credentials over TLS; every guard-consumer's /readyz answering ready; and
# an agent without credentials refused. Bounded: it gives up after
# CHECK_TIMEOUT seconds (default 300), and always takes the project down
# with its volumes (and so with the credentials its auth-init made).
# COMPOSE_YAML names another compose file to check the same way; TAG the
# images' tag (default dev), as for deploy/build.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
timeout=${CHECK_TIMEOUT:-300}
export TAG=${TAG:-dev}
echo "== images guardstream/*:$TAG"
project=guardstream-check-$$
if docker compose version >/dev/null 2>&1; then
	compose=(docker compose)
else
	compose=(docker-compose)
fi
compose+=(-p "$project" -f "${COMPOSE_YAML:-deploy/compose.yaml}")
# Free host ports, so that the check runs beside anything else.
export GUARD_HTTP_1=0 GUARD_HTTP_2=0
trap '"${compose[@]}" down -v --remove-orphans >/dev/null 2>&1 || true' EXIT

# fail prints why the check failed: the last lines of every service's log,
# then the demo's own output and the reason, last, where a truncated CI
# log still shows them.
fail() {
	for service in $("${compose[@]}" config --services | grep -v '^emitter-demo$'); do
		"${compose[@]}" logs --no-color --tail 40 "$service" >&2 || true
	done
	echo "== emitter-demo's output" >&2
	"${compose[@]}" logs --no-color emitter-demo >&2 || true
	echo "compose check failed: $*" >&2
	exit 1
}

start=$SECONDS
"${compose[@]}" up -d --quiet-pull 2>&1 | grep -v -e '^Creating' -e '^$' || true
demo=$("${compose[@]}" ps -q emitter-demo)
if [ -z "$demo" ]; then
	fail "compose did not start emitter-demo (a guard-consumer it depends on never turned healthy?)"
fi
until [ "$(docker inspect -f '{{.State.Status}}' "$demo")" = exited ]; do
	if (( SECONDS - start > timeout )); then
		fail "emitter-demo still running after ${timeout}s"
	fi
	sleep 1
done
code=$(docker inspect -f '{{.State.ExitCode}}' "$demo")
output=$(docker logs "$demo" 2>&1)
echo "== emitter-demo (exit $code, ${SECONDS}s after up)"
echo "$output"
if [ "$code" != 0 ]; then
	fail "emitter-demo exited with $code"
fi
for want in "stopped by the loop guard: LOOP_DETECTED" "stopped by the lease guard: LEASE_EXPIRED" "reject POLICY_VIOLATION"; do
	if ! grep -qF "$want" <<<"$output"; then
		fail "the demo's output has no \"$want\""
	fi
done

# Secure by default: the demo's image and CA, with no credentials, is
# refused by the cluster.
if anon=$("${compose[@]}" run --rm --no-deps emitter-demo --nats-url tls://nats-1:4222 --tls-ca /auth/agent/ca.pem 2>&1); then
	echo "an agent without credentials got in:" >&2
	echo "$anon" >&2
	exit 1
fi
if ! grep -q "Authorization Violation" <<<"$anon"; then
	echo "an agent without credentials failed, but not for want of them:" >&2
	echo "$anon" >&2
	exit 1
fi
echo "== an agent without credentials: $(grep -o 'Authorization Violation' <<<"$anon" | head -1)"

for service in $("${compose[@]}" config --services | grep '^guard-consumer'); do
	# -profile production names a connection without credentials or TLS.
	if "${compose[@]}" logs --no-color "$service" 2>&1 | grep -e 'neither -creds nor -nkey' -e 'is not TLS'; then
		echo "$service connects to NATS without credentials or without TLS" >&2
		exit 1
	fi
	addr=$("${compose[@]}" port "$service" 8280)
	ready=$(curl -fsS "http://$addr/readyz")
	decisions=$(curl -fsS "http://$addr/metrics" | grep -c '^guardstream_decisions_total' || true)
	echo "== $service: /readyz $ready; /metrics has $decisions decision series"
done
echo "compose check passed in ${SECONDS}s"
