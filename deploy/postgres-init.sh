#!/bin/sh
# The roles and databases of the platform's PostgreSQL, made the same way by
# deploy/cluster.sh (every start) and docker-compose.yml (the postgres
# image's first start): temporal and temporal_visibility owned by the role
# temporal, ferretdb owned by the role ferretdb. Idempotent. The schema of
# the Temporal databases is set up by Temporal's own SQL tool afterwards.
set -eu
psql=${PSQL:-psql -v ON_ERROR_STOP=1 -U postgres -d postgres -qAt}
for role in temporal ferretdb; do
  if [ "$role" = temporal ]; then pw=$TEMPORAL_DB_PASSWORD; else pw=$FERRETDB_PASSWORD; fi
  if [ -z "$($psql -c "SELECT 1 FROM pg_roles WHERE rolname = '$role'")" ]; then
    $psql -c "CREATE ROLE $role LOGIN PASSWORD '$pw'"
  fi
done
for pair in temporal:temporal temporal_visibility:temporal ferretdb:ferretdb; do
  db=${pair%%:*}
  if [ -z "$($psql -c "SELECT 1 FROM pg_database WHERE datname = '$db'")" ]; then
    $psql -c "CREATE DATABASE $db OWNER ${pair#*:}"
  fi
done
