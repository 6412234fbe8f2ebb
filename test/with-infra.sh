#!/usr/bin/env bash
# Runs a command with MONGODB_URI and TEMPORAL_ADDRESS pointing at real
# servers: the ones already set in the environment, or one `platform infra`
# (embedded FerretDB + Temporal on free ports) started here and stopped after.
set -euo pipefail
BIN=${PLATFORM_BIN:-bin/platform}
# Tests run in their package's directory: hand them an absolute path.
BIN="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
if [[ -n "${MONGODB_URI:-}" && -n "${TEMPORAL_ADDRESS:-}" ]]; then
  export PLATFORM_BIN="$BIN"
  exec "$@"
fi
data=$(mktemp -d -t platform-infra-XXXXXX)
envfile="$data/env"
"$BIN" infra --data "$data" --store-addr 127.0.0.1:0 --temporal-port 0 --temporal-ui-port off \
  --env-file "$envfile" --log-level error >/dev/null &
infra=$!
cleanup() { kill "$infra" 2>/dev/null || true; wait "$infra" 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT
for _ in $(seq 1 600); do
  [[ -f "$envfile" ]] && break
  kill -0 "$infra" 2>/dev/null || { echo "platform infra exited early" >&2; exit 1; }
  sleep 0.1
done
[[ -f "$envfile" ]] || { echo "platform infra did not become ready" >&2; exit 1; }
set -a; source "$envfile"; set +a
export PLATFORM_BIN="$BIN"
echo "test infrastructure: MONGODB_URI=$MONGODB_URI TEMPORAL_ADDRESS=$TEMPORAL_ADDRESS" >&2
export PLATFORM_BIN="$BIN"
"$@"
