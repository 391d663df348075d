#!/usr/bin/env bash
# Install the harness CLIs the end-to-end tests run (tests/e2e_harnesses.rs): Claude Code
# 2.1.332, Gemini CLI 0.61.0 and Codex CLI 0.171.0, from the npm registry, pinned by the
# live-harness kit. Idempotent: a harness already at its pinned version is left alone.
#
#   scripts/e2e-setup.sh [claude|gemini|codex ...]     (default: all three)
#
# Environment:
#   E2E_KIT                 the kit (default: ../shared/live-harness next to this checkout)
#   INTENTSHIELD_E2E_CACHE  where the CLIs go (default: ~/.cache/intentshield-e2e; cache it in CI)
# Without node the tests skip themselves, so this script then only says so and exits 0.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kit=${E2E_KIT:-$here/../shared/live-harness}
if ! command -v node >/dev/null; then
  echo "e2e-setup: node is not on PATH; the end-to-end tests will be skipped" >&2
  exit 0
fi
[ -f "$kit/install.sh" ] || { echo "e2e-setup: no live-harness kit at $kit (set E2E_KIT)" >&2; exit 1; }
export INTENTSHIELD_E2E_CACHE=${INTENTSHIELD_E2E_CACHE:-$HOME/.cache/intentshield-e2e}
# Say what is about to be downloaded before doing it (the three CLIs are about 900 MB).
want=("$@")
[ ${#want[@]} -gt 0 ] || want=(claude gemini codex)
missing=()
for h in "${want[@]}"; do
  [ -x "$INTENTSHIELD_E2E_CACHE/$h/node_modules/.bin/$h" ] || missing+=("$h")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "e2e-setup: installing the pinned harness CLIs ${missing[*]} from the npm registry into $INTENTSHIELD_E2E_CACHE (about 900 MB for all three, once); INTENTSHIELD_E2E=skip skips the end-to-end tests instead" >&2
fi
exec bash "$kit/install.sh" "$@"
