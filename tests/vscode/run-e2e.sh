#!/usr/bin/env bash
# The VS Code end-to-end test, in one command: installs code-server and
# playwright-core (cached), builds the faultlens server and the .vsix, then
# runs tests/vscode/e2e.mjs. Screenshots and logs go to tests/artifacts/vscode/.
# Exits non-zero on failure; the last line is "N passed, N failed".
#
# Environment: FAULTLENS_BIN (use this server binary instead of building
# target/debug/faultlens), FAULTLENS_E2E_CACHE (install cache; default
# tests/vscode/.cache), FAULTLENS_E2E_KEEP=1 (keep the temp workspace).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${FAULTLENS_E2E_CACHE:-$here/.cache}"
artifacts="$repo/tests/artifacts/vscode"

fail() {
  echo "run-e2e.sh: $*" >&2
  echo "0 passed, 1 failed"
  exit 1
}

"$here/install.sh" || fail "installing code-server/playwright failed"

server="${FAULTLENS_BIN:-}"
if [ -z "$server" ]; then
  echo "run-e2e.sh: building the server (cargo build -p faultlens)" >&2
  (cd "$repo" && cargo build -q -p faultlens) || fail "cargo build -p faultlens failed"
  server="$repo/target/debug/faultlens"
fi
[ -x "$server" ] || fail "no server binary at $server"

echo "run-e2e.sh: packaging the extension" >&2
(
  cd "$repo/vscode-extension"
  [ -d node_modules ] && [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund >/dev/null
  npm run -s package >/dev/null
) || fail "building the .vsix failed (cd vscode-extension && npm ci && npm run package)"

rm -rf "$artifacts"
mkdir -p "$artifacts"
keep=()
[ "${FAULTLENS_E2E_KEEP:-}" = 1 ] && keep=(--keep)
exec node "$here/e2e.mjs" \
  --server "$server" \
  --vsix "$repo/vscode-extension/faultlens.vsix" \
  --fixture "$repo/fixtures/mid-args" \
  --multi-fixture "$repo/fixtures/multi-file-helper" \
  --ctest-fixture "$repo/fixtures/ringbuf-ctest" \
  --artifacts "$artifacts" \
  --cache "$cache" "${keep[@]}"
