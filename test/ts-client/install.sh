#!/usr/bin/env bash
# Installs the locked npm dependencies once (the Go test calls this when
# node_modules is missing). npm ci installs exactly package-lock.json.
set -euo pipefail
cd "$(dirname "$0")"
if [[ ! -d node_modules/openapi-typescript ]]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
