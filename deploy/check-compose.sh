#!/usr/bin/env bash
# Runs deploy/compose.yaml as a user would, after deploy/build.sh, and checks
# what it must show: the demo fleet's decisions, made with its own
# credentials over TLS; every guard-consumer's /readyz answering ready; an
# agent without credentials refused; a rogue nats-server without the route
# password refused as a route, even on the routes network; and the servers'
# monitoring and routes out of the agents' network's reach. Bounded: it gives up after
# CHECK_TIMEOUT seconds (default 300), and always takes the project down
# with its volumes (and so with the credentials its auth-init made).
# COMPOSE_YAML names another compose file to check the same way; TAG the
# images' tag (default dev), as for deploy/build.sh. NATS_ROUTE_PASSWORD is
# the route password (default: a new random one).
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
# A route password of this run's own, not compose.yaml's demo value.
export NATS_ROUTE_PASSWORD=${NATS_ROUTE_PASSWORD:-r$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')}
rogue=$project-rogue-route
trap 'docker rm -f "$rogue" >/dev/null 2>&1 || true; "${compose[@]}" down -v --remove-orphans >/dev/null 2>&1 || true' EXIT

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

# network prints the name of the project's compose network $1.
network() {
	docker network ls -q --filter "label=com.docker.compose.project=$project" \
		--filter "label=com.docker.compose.network=$1" | xargs docker network inspect -f '{{.Name}}'
}
# agent_nets are the networks emitter-demo, an agent, ran on.
agent_nets=$(docker inspect -f '{{range $n, $_ := .NetworkSettings.Networks}}{{$n}} {{end}}' "$demo")
agent_nets=${agent_nets% }
if [ "$agent_nets" != "$(network default)" ]; then
	fail "emitter-demo is on the networks $agent_nets, not on the default network alone"
fi
# probe GETs, from a throwaway container on network $1, http://$2/readyz
# (guard-consumer ready; the servers' monitoring answers 404 there) and
# prints what it got. $2 may end in a path and '?': host:port/routez? GETs
# /routez, with /readyz as its query.
probe() {
	docker run --rm --network "$1" --entrypoint /guard-consumer "guardstream/guard-consumer:$TAG" \
		ready -timeout 3s -http "$2" 2>&1 || true
}
# Monitoring: reachable on the monitoring network (the control: a 404 from
# the server), by no name or address on the agents' network.
if ! grep -q "404 page not found" <<<"$(probe "$(network monitoring)" nats-1-monitor:8222)"; then
	fail "nats-1's monitoring does not answer on the monitoring network: $(probe "$(network monitoring)" nats-1-monitor:8222)"
fi
for target in nats-1:8222 nats-1-monitor:8222 nats-1:6222; do
	got=$(probe "$agent_nets" "$target")
	if ! grep -q -e "connection refused" -e "no such host" <<<"$got"; then
		fail "an agent reaches $target: $got"
	fi
	echo "== from the agents' network, $target: $(grep -o -e "connection refused" -e "no such host" <<<"$got")"
done

# A rogue nats-server joining the cluster: on the routes network, which the
# agents are not on, so at its best, and without the route password. The
# node must refuse it as a route, and nothing may route to it.
docker run -d --name "$rogue" --network "$(network routes)" --entrypoint /nats-server "guardstream/nats-server:$TAG" \
	-n rogue --cluster_name guardstream --cluster nats://0.0.0.0:6222 --routes nats://nats-1-routes:6222 >/dev/null
sleep 5
rogue_log=$(docker logs "$rogue" 2>&1)
nats1_log=$("${compose[@]}" logs --no-color nats-1 2>&1)
routez=$(probe "$(network monitoring)" nats-1-monitor:8222/routez?)
if ! grep -q "Authorization Violation" <<<"$rogue_log" || ! grep -q "rid:.*authentication error" <<<"$nats1_log" ||
	grep -q '"remote_name": *"rogue"' <<<"$routez" ||
	! grep -q '"remote_name": *"nats-2"' <<<"$routez" || ! grep -q '"remote_name": *"nats-3"' <<<"$routez"; then
	echo "== the rogue's log" >&2
	echo "$rogue_log" >&2
	echo "== nats-1's /routez" >&2
	echo "$routez" >&2
	fail "a nats-server without the route password was not refused as a route"
fi
echo "== a route without the password: nats-1 logs $(grep -o 'rid:[0-9]* - authentication error' <<<"$nats1_log" | head -1), the rogue gets $(grep -o "Authorization Violation" <<<"$rogue_log" | head -1), nats-1's /routez has nats-2 and nats-3, not it"
docker rm -f "$rogue" >/dev/null

for service in $("${compose[@]}" config --services | grep '^guard-consumer'); do
	# -profile production names a connection without credentials or TLS,
	# and a server whose monitoring (on the monitoring network) it cannot read.
	if "${compose[@]}" logs --no-color "$service" 2>&1 | grep -e 'neither -creds nor -nkey' -e 'is not TLS'; then
		echo "$service connects to NATS without credentials or without TLS" >&2
		exit 1
	fi
	if "${compose[@]}" logs --no-color "$service" 2>&1 | grep -e 'cannot read the sync setting'; then
		echo "$service cannot read the servers' monitoring" >&2
		exit 1
	fi
	addr=$("${compose[@]}" port "$service" 8280)
	ready=$(curl -fsS "http://$addr/readyz")
	decisions=$(curl -fsS "http://$addr/metrics" | grep -c '^guardstream_decisions_total' || true)
	echo "== $service: /readyz $ready; /metrics has $decisions decision series"
done
echo "compose check passed in ${SECONDS}s"
