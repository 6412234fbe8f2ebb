#!/usr/bin/env bash
# The scaled deployment of DESIGN §6 on one machine, without Docker:
# PostgreSQL (Debian's server), the Temporal server as four processes
# (frontend, history, matching, worker) on it, the Temporal UI, FerretDB on
# PostgreSQL as the MongoDB wire protocol, two `platform api` and two
# `platform worker` replicas, and nginx as the gateway (deploy/nginx-gateway.conf).
#
#   deploy/cluster.sh up             start what is not running, print the addresses
#   deploy/cluster.sh down           stop everything; the data stays in $CLUSTER_DATA
#   deploy/cluster.sh status         what runs, with its pid
#   deploy/cluster.sh env            the client settings (MONGODB_URI, TEMPORAL_ADDRESS, ...)
#   deploy/cluster.sh start|stop|kill <component>...   one component (kill: SIGKILL)
#
# Components: postgres temporal-frontend temporal-history temporal-matching
# temporal-worker temporal-ui ferretdb api1 api2 worker1 worker2 gateway.
#
# Settings (environment): CLUSTER_TOOLS, the directory `make cluster-tools`
# built the servers into (required for up/start); CLUSTER_DATA (./cluster-data);
# CLUSTER_PORT_BASE (17000: every port is base + a fixed offset, all on
# 127.0.0.1); PLATFORM_BIN (bin/platform). PLATFORM_* settings in the
# caller's environment win over deploy/platform.env.
#
# Run as root (CI), PostgreSQL and nginx run as the system user
# platform-cluster, created on first use: PostgreSQL refuses to run as root.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATA=${CLUSTER_DATA:-$ROOT/cluster-data}
mkdir -p "$DATA/run" "$DATA/logs"
DATA=$(cd "$DATA" && pwd)
BASE=${CLUSTER_PORT_BASE:-17000}
BIN=${PLATFORM_BIN:-$ROOT/bin/platform}
TOOLS=${CLUSTER_TOOLS:-}
RUN=$DATA/run
LOGS=$DATA/logs
OSUSER=platform-cluster

# Ports: base + offset.
P_POSTGRES=$((BASE + 432))
P_FERRETDB=$((BASE + 27))
P_FRONTEND=$((BASE + 233))
P_FRONTEND_HTTP=$((BASE + 243))
P_HISTORY=$((BASE + 234))
P_MATCHING=$((BASE + 235))
P_TWORKER=$((BASE + 239))
P_UI=$((BASE + 280))
P_GATEWAY=$((BASE + 80))
P_API1=$((BASE + 81))
P_API2=$((BASE + 82))
P_WORKER1=$((BASE + 91)) # the workers' health probes
P_WORKER2=$((BASE + 92))

COMPONENTS=(postgres temporal-frontend temporal-history temporal-matching temporal-worker
  temporal-ui ferretdb api1 api2 worker1 worker2 gateway)
# The namespace's keyword search attributes: workflows/contract.SearchAttributes
# (test/cluster checks that they agree).
SEARCH_ATTRIBUTES=PlatformCustomer,PlatformPipeline,PlatformWebhook,PlatformEvent

log() { printf '%s cluster: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "$*"; exit 1; }

# --- who runs PostgreSQL and nginx -----------------------------------------

is_root() { [[ $(id -u) -eq 0 ]]; }

# as_user runs a command as the cluster's unprivileged user (the caller
# when not root), replacing the current process image: call it in a
# subshell. user_prefix is the same as words, for spawn.
as_user() { exec "${USER_PREFIX[@]}" "$@"; }
USER_PREFIX=(env)
if is_root; then USER_PREFIX=(setpriv --reuid="$OSUSER" --regid="$OSUSER" --init-groups env); fi

ensure_user() {
  is_root || return 0
  id "$OSUSER" >/dev/null 2>&1 ||
    useradd --system --user-group --no-create-home --shell /usr/sbin/nologin "$OSUSER"
}

# UHOME holds what the unprivileged user writes (PostgreSQL's data and
# socket, nginx's configuration and buffers): $DATA/home, or, when that
# user cannot reach $DATA (a checkout under a private directory), a
# directory under /var/lib linked from $DATA/home.
UHOME=$DATA/home
setup_home() {
  ensure_user
  if is_root; then
    if [[ -L $DATA/home ]]; then
      UHOME=$(readlink "$DATA/home")
    elif ! setpriv --reuid="$OSUSER" --regid="$OSUSER" --init-groups test -x "$DATA"; then
      UHOME=/var/lib/platform-cluster/$(printf '%s' "$DATA" | sha1sum | cut -c1-12)
      mkdir -p "$UHOME"
      ln -sfn "$UHOME" "$DATA/home"
    fi
  fi
  mkdir -p "$UHOME/run" "$UHOME/nginx/tmp"
  is_root && chown -R "$OSUSER:$OSUSER" "$UHOME"
  chmod 700 "$UHOME"
}
if [[ -L $DATA/home ]]; then UHOME=$(readlink "$DATA/home"); fi

pg_bin() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [[ -n $d ]] || die "PostgreSQL is not installed (make cluster installs Debian's postgresql)"
  echo "$d"
}

# --- secrets, made once ------------------------------------------------------

secrets() {
  local f=$DATA/secrets.env
  if [[ ! -f $f ]]; then
    umask 077
    {
      echo "TEMPORAL_DB_PASSWORD=$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')"
      echo "FERRETDB_PASSWORD=$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')"
      echo "PLATFORM_MASTER_KEY=$(head -c 32 /dev/urandom | base64)"
    } >"$f"
    umask 022
  fi
  # shellcheck disable=SC1090
  source "$f"
}

# --- processes ---------------------------------------------------------------

pidfile() { echo "$RUN/$1.pid"; }

running() {
  local pid
  if [[ $1 == postgres ]]; then
    [[ -f $UHOME/pgdata/postmaster.pid ]] || return 1
    pid=$(head -1 "$UHOME/pgdata/postmaster.pid")
  else
    [[ -f $(pidfile "$1") ]] || return 1
    pid=$(cat "$(pidfile "$1")")
  fi
  kill -0 "$pid" 2>/dev/null
}

pid_of() {
  if [[ $1 == postgres ]]; then head -1 "$UHOME/pgdata/postmaster.pid"; else cat "$(pidfile "$1")"; fi
}

# spawn NAME CMD...: runs CMD in its own session, logging to logs/NAME.log.
spawn() {
  local name=$1
  shift
  mkdir -p "$RUN" "$LOGS"
  (exec setsid "$@" >>"$LOGS/$name.log" 2>&1 </dev/null) &
  echo $! >"$(pidfile "$name")"
}

# halt NAME SIGNAL WAIT: signals the component and waits for its exit.
halt() {
  local name=$1 sig=$2 wait=$3 pid i
  running "$name" || { rm -f "$(pidfile "$name")"; return 0; }
  pid=$(pid_of "$name")
  kill "-$sig" "$pid" 2>/dev/null || true
  for ((i = 0; i < wait * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "$name did not stop within ${wait}s: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$(pidfile "$name")"
}

need_tools() {
  [[ -n $TOOLS && -x $TOOLS/temporal-server ]] ||
    die "CLUSTER_TOOLS must name the directory of the built servers (run: make cluster)"
}

# --- PostgreSQL ----------------------------------------------------------------

psql_admin() {
  (as_user "$(pg_bin)/psql" -h "$UHOME/run" -p "$P_POSTGRES" -U postgres -d postgres -v ON_ERROR_STOP=1 -qAt "$@")
}

start_postgres() {
  setup_home
  local bin
  bin=$(pg_bin)
  if [[ ! -f $UHOME/pgdata/PG_VERSION ]]; then
    log "initialising PostgreSQL in $UHOME/pgdata"
    (as_user "$bin/initdb" -D "$UHOME/pgdata" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
      -E UTF8 --no-locale >"$LOGS/postgres-initdb.log" 2>&1) || die "initdb failed: $LOGS/postgres-initdb.log"
  fi
  running postgres && return 0
  # pg_ctl starts the server in the background and waits until it accepts
  # connections; the pid is in postmaster.pid.
  (as_user "$bin/pg_ctl" -D "$UHOME/pgdata" -l "$UHOME/postgres.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $P_POSTGRES -k $UHOME/run -c max_connections=300" start >/dev/null) ||
    die "PostgreSQL did not start: $UHOME/postgres.log"
  ln -sfn "$UHOME/postgres.log" "$LOGS/postgres.log"
}

stop_postgres() {
  running postgres || return 0
  (as_user "$(pg_bin)/pg_ctl" -D "$UHOME/pgdata" -m fast -w -t 60 stop >/dev/null) || halt postgres KILL 5
}

# setup_databases makes the roles and databases (idempotent): the same
# script as docker-compose.yml's, read from stdin, since the unprivileged
# user may not reach the checkout.
setup_databases() {
  secrets
  (as_user env TEMPORAL_DB_PASSWORD="$TEMPORAL_DB_PASSWORD" FERRETDB_PASSWORD="$FERRETDB_PASSWORD" \
    PSQL="$(pg_bin)/psql -h $UHOME/run -p $P_POSTGRES -U postgres -d postgres -v ON_ERROR_STOP=1 -qAt" \
    sh -s <"$ROOT/deploy/postgres-init.sh") || die "creating the roles and databases failed"
}

# setup_temporal_schema brings both Temporal databases to the schema this
# server version ships, with its own SQL tool (idempotent).
setup_temporal_schema() {
  secrets
  local db schema
  for db in temporal:temporal temporal_visibility:visibility; do
    schema=postgresql/v12/${db#*:}
    db=${db%%:*}
    local sqltool=("$TOOLS/temporal-sql-tool" --plugin postgres12 --ep 127.0.0.1 -p "$P_POSTGRES"
      -u temporal --pw "$TEMPORAL_DB_PASSWORD" --db "$db")
    if [[ -z $(psql_admin -d "$db" -c "SELECT 1 FROM pg_tables WHERE tablename = 'schema_version'") ]]; then
      "${sqltool[@]}" setup-schema -v 0.0 >>"$LOGS/temporal-schema.log" 2>&1 || die "schema setup of $db failed: $LOGS/temporal-schema.log"
    fi
    "${sqltool[@]}" update-schema --schema-name "$schema" >>"$LOGS/temporal-schema.log" 2>&1 ||
      die "schema update of $db failed: $LOGS/temporal-schema.log"
  done
}

# --- Temporal ----------------------------------------------------------------------

# temporal_exec SERVICE CMD...: runs CMD with the settings of one Temporal
# service process (deploy/temporal-config.yaml reads them).
temporal_exec() {
  secrets
  local service=$1 offset
  case $service in
  frontend) offset=0 ;; history) offset=1 ;; matching) offset=2 ;; worker) offset=3 ;;
  esac
  export TEMPORAL_DB_ADDR="127.0.0.1:$P_POSTGRES" TEMPORAL_DB_USER=temporal TEMPORAL_DB_PASSWORD
  export TEMPORAL_BROADCAST_ADDRESS=127.0.0.1 TEMPORAL_BIND_ON_IP=127.0.0.1
  export TEMPORAL_METRICS_ADDR="127.0.0.1:$((BASE + 300 + offset))" TEMPORAL_FRONTEND_ADDR="127.0.0.1:$P_FRONTEND"
  export TEMPORAL_FRONTEND_PORT=$P_FRONTEND TEMPORAL_FRONTEND_HTTP_PORT=$P_FRONTEND_HTTP TEMPORAL_FRONTEND_MEMBERSHIP_PORT=$((BASE + 933))
  export TEMPORAL_HISTORY_PORT=$P_HISTORY TEMPORAL_HISTORY_MEMBERSHIP_PORT=$((BASE + 934))
  export TEMPORAL_MATCHING_PORT=$P_MATCHING TEMPORAL_MATCHING_MEMBERSHIP_PORT=$((BASE + 935))
  export TEMPORAL_WORKER_PORT=$P_TWORKER TEMPORAL_WORKER_MEMBERSHIP_PORT=$((BASE + 939))
  export TEMPORAL_DYNAMIC_CONFIG="$ROOT/deploy/temporal-dynamicconfig.yaml"
  exec "${@:2}"
}

start_temporal() {
  local service=$1 name=temporal-$1
  running "$name" && return 0
  need_tools
  # The server reads <config>/<env>.yaml: deploy/temporal-config.yaml.
  mkdir -p "$DATA/temporal"
  ln -sfn "$ROOT/deploy/temporal-config.yaml" "$DATA/temporal/platform.yaml"
  spawn "$name" "$ROOT/deploy/cluster.sh" __temporal "$service" "$TOOLS/temporal-server" --root "$DATA" --config temporal --env platform \
    --allow-no-auth start --service "$service"
}

temporal_setup() {
  "$TOOLS/clusterctl" temporal-setup -address "127.0.0.1:$P_FRONTEND" -namespace "${TEMPORAL_NAMESPACE:-default}" \
    -retention 72h -keywords "$SEARCH_ATTRIBUTES" -timeout 3m
}

start_ui() {
  running temporal-ui && return 0
  need_tools
  spawn temporal-ui env TEMPORAL_ADDRESS="127.0.0.1:$P_FRONTEND" TEMPORAL_UI_PORT="$P_UI" \
    TEMPORAL_NOTIFY_ON_NEW_VERSION=false TEMPORAL_CSRF_COOKIE_INSECURE=true \
    "$TOOLS/temporal-ui-server" --root "$TOOLS" --config ui-config --env docker start
}

# --- FerretDB --------------------------------------------------------------------

start_ferretdb() {
  running ferretdb && return 0
  need_tools
  secrets
  spawn ferretdb env FERRETDB_HANDLER=postgresql \
    FERRETDB_POSTGRESQL_URL="postgres://ferretdb:$FERRETDB_PASSWORD@127.0.0.1:$P_POSTGRES/ferretdb" \
    FERRETDB_LISTEN_ADDR="127.0.0.1:$P_FERRETDB" FERRETDB_LOG_LEVEL=warn "$TOOLS/ferretdb"
}

# --- the platform --------------------------------------------------------------

gateway_url() { echo "http://localhost:$P_GATEWAY"; }

# platform_env exports deploy/platform.env's settings the caller did not set.
platform_env() {
  local line key
  while IFS= read -r line; do
    [[ $line =~ ^([A-Z_0-9]+)=(.*)$ ]] || continue
    key=${BASH_REMATCH[1]}
    [[ -n ${!key+x} ]] || export "$key=${BASH_REMATCH[2]}"
  done <"$ROOT/deploy/platform.env"
}

start_platform() {
  local name=$1 role=${1%[0-9]} port=
  running "$name" && return 0
  [[ -x $BIN ]] || die "$BIN is missing (make build)"
  secrets
  case $name in api1) port=$P_API1 ;; api2) port=$P_API2 ;; worker1) port=$P_WORKER1 ;; worker2) port=$P_WORKER2 ;; esac
  mkdir -p "$DATA/platform/$name"
  (
    platform_env
    export MONGODB_URI="mongodb://127.0.0.1:$P_FERRETDB/" TEMPORAL_ADDRESS="127.0.0.1:$P_FRONTEND"
    export PLATFORM_MASTER_KEY PLATFORM_DATA="$DATA/platform/$name"
    export PLATFORM_GATEWAY_URL=${PLATFORM_GATEWAY_URL:-$(gateway_url)} PLATFORM_DOMAIN=${PLATFORM_DOMAIN:-localhost:$P_GATEWAY}
    export PLATFORM_TEMPORAL_UI_URL=${PLATFORM_TEMPORAL_UI_URL:-http://localhost:$P_UI}
    if [[ $role == api ]]; then export PLATFORM_HTTP_ADDR="127.0.0.1:$port"; else export PLATFORM_HEALTH_ADDR="127.0.0.1:$port"; fi
    spawn "$name" "$BIN" "$role"
  )
}

start_gateway() {
  running gateway && return 0
  setup_home
  local conf=$UHOME/nginx/nginx.conf
  # The unprivileged user may not reach the checkout: the routes are copied.
  cp "$ROOT/deploy/nginx-gateway.conf" "$UHOME/nginx/gateway.conf"
  cat >"$conf" <<EOF
# Written by deploy/cluster.sh: the gateway of \`make cluster\`.
daemon off;
worker_processes 1;
pid $UHOME/nginx/nginx.pid;
error_log $UHOME/nginx/error.log warn;
events {}
http {
  access_log off;
  client_body_temp_path $UHOME/nginx/tmp/body;
  proxy_temp_path $UHOME/nginx/tmp/proxy;
  fastcgi_temp_path $UHOME/nginx/tmp/fastcgi;
  uwsgi_temp_path $UHOME/nginx/tmp/uwsgi;
  scgi_temp_path $UHOME/nginx/tmp/scgi;
  upstream api {
    server 127.0.0.1:$P_API1 max_fails=1 fail_timeout=5s;
    server 127.0.0.1:$P_API2 max_fails=1 fail_timeout=5s;
    keepalive 32;
  }
  server {
    listen 127.0.0.1:$P_GATEWAY;
    include $UHOME/nginx/gateway.conf;
  }
}
EOF
  is_root && chown -R "$OSUSER:$OSUSER" "$UHOME/nginx"
  command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || die "nginx is not installed (make cluster installs Debian's nginx)"
  (as_user /usr/sbin/nginx -t -q -p "$UHOME/nginx" -c "$conf" -e "$UHOME/nginx/error.log") ||
    die "the gateway's configuration does not load"
  spawn gateway "${USER_PREFIX[@]}" /usr/sbin/nginx -p "$UHOME/nginx" -c "$conf" -e "$UHOME/nginx/error.log"
}

# --- components by name ------------------------------------------------------

start_one() {
  case $1 in
  postgres) start_postgres && setup_databases ;;
  temporal-frontend | temporal-history | temporal-matching | temporal-worker) start_temporal "${1#temporal-}" ;;
  temporal-ui) start_ui ;;
  ferretdb) start_ferretdb ;;
  api1 | api2 | worker1 | worker2) start_platform "$1" ;;
  gateway) start_gateway ;;
  *) die "unknown component $1 (one of: ${COMPONENTS[*]})" ;;
  esac
}

stop_one() {
  case $1 in
  postgres) stop_postgres ;;
  worker1 | worker2) halt "$1" TERM 45 ;; # drains: PLATFORM_SHUTDOWN_TIMEOUT and the webhook time-out
  api1 | api2) halt "$1" TERM 40 ;;
  gateway) halt gateway QUIT 10 ;;
  *) halt "$1" TERM 30 ;;
  esac
}

kill_one() {
  running "$1" || return 0
  kill -KILL "$(pid_of "$1")"
  rm -f "$(pidfile "$1")"
}

wait_platform() {
  local url
  for url in "127.0.0.1:$P_API1" "127.0.0.1:$P_API2" "127.0.0.1:$P_WORKER1" "127.0.0.1:$P_WORKER2" "127.0.0.1:$P_GATEWAY"; do
    "$TOOLS/clusterctl" wait-http "http://$url/readyz" 5m
  done
}

up() {
  need_tools
  local began=$SECONDS
  start_postgres
  setup_databases
  setup_temporal_schema
  for s in frontend history matching worker; do start_temporal "$s"; done
  temporal_setup
  start_ui
  start_ferretdb
  for n in api1 api2 worker1 worker2; do start_platform "$n"; done
  start_gateway
  wait_platform
  log "up in $((SECONDS - began)) s"
  summary
}

down() {
  local i
  # Reverse order: the gateway, the replicas (draining), then the servers.
  for ((i = ${#COMPONENTS[@]} - 1; i >= 0; i--)); do stop_one "${COMPONENTS[$i]}"; done
  log "stopped; the data stays in $DATA (remove it to start afresh)"
}

status() {
  local c
  for c in "${COMPONENTS[@]}"; do
    if running "$c"; then printf '%-18s running  pid %s\n' "$c" "$(pid_of "$c")"; else printf '%-18s stopped\n' "$c"; fi
  done
}

client_env() {
  cat <<EOF
MONGODB_URI=mongodb://127.0.0.1:$P_FERRETDB/
TEMPORAL_ADDRESS=127.0.0.1:$P_FRONTEND
PLATFORM_GATEWAY_URL=$(gateway_url)
PLATFORM_DOMAIN=localhost:$P_GATEWAY
CLUSTER_API1=http://127.0.0.1:$P_API1
CLUSTER_API2=http://127.0.0.1:$P_API2
CLUSTER_WORKER1=http://127.0.0.1:$P_WORKER1
CLUSTER_WORKER2=http://127.0.0.1:$P_WORKER2
CLUSTER_TEMPORAL_UI=http://localhost:$P_UI
CLUSTER_POSTGRES=127.0.0.1:$P_POSTGRES
CLUSTER_LOGS=$LOGS
EOF
}

summary() {
  cat <<EOF

The cluster is up (data and logs in $DATA):
  gateway (nginx)        $(gateway_url)          -> api1 127.0.0.1:$P_API1, api2 127.0.0.1:$P_API2
  platform workers       worker1, worker2 (probes: 127.0.0.1:$P_WORKER1, :$P_WORKER2; logs: $LOGS/worker1.log, worker2.log)
  Temporal frontend      127.0.0.1:$P_FRONTEND (history :$P_HISTORY, matching :$P_MATCHING, worker :$P_TWORKER)
  Temporal UI            http://localhost:$P_UI
  FerretDB (MongoDB)     mongodb://127.0.0.1:$P_FERRETDB/  (on PostgreSQL database ferretdb)
  PostgreSQL             127.0.0.1:$P_POSTGRES (databases temporal, temporal_visibility, ferretdb)
Use it (admin commands reach the store and sign for the gateway's address):
  export \$(deploy/cluster.sh env | grep -v ^CLUSTER_)
  TOKEN=\$(bin/platform customer create demo >/dev/null && bin/platform token --customer demo --scope 'crm.*')
  curl -H "Authorization: Bearer \$TOKEN" $(gateway_url)/crm/consumers
Stop it (the data stays): make cluster-down      Status: deploy/cluster.sh status
EOF
}

# spawn's entry for a Temporal service: the script runs itself, so that the
# settings are set in that process only, and execs the server.
if [[ ${1:-} == __temporal ]]; then
  shift
  temporal_exec "$@"
fi

cmd=${1:-}
shift || true
case $cmd in
up) up ;;
down) down ;;
status) status ;;
env) client_env ;;
start) for c in "$@"; do start_one "$c"; done ;;
stop) for c in "$@"; do stop_one "$c"; done ;;
kill) for c in "$@"; do kill_one "$c"; done ;;
*)
  sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
  ;;
esac
