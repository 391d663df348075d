#!/usr/bin/env bash
# The project's test command (README): formatting, lints, then every test, then a summary.
#
# Tests that cannot run here (no ../shared beside the checkout, no node, a real MCP server or
# harness CLI not installed) skip: they return early, which libtest counts as "passed", and
# libtest hides a passing test's output. So every skip is also appended to the file named by
# INTENTSHIELD_SKIP_LOG (tests/skip/mod.rs), and this script prints that file at the end,
# next to the totals: what passed, and which of those only skipped, and why.
#
# The end-to-end tests run the real Claude Code, Gemini CLI and Codex CLI. When node and npm
# are here and the CLIs are not installed yet, this script says so and installs them first
# (scripts/e2e-setup.sh, about 900 MB from the npm registry, once, into
# ${INTENTSHIELD_E2E_CACHE:-~/.cache/intentshield-e2e}). INTENTSHIELD_E2E=skip skips them.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --all-targets -- -D warnings
cache=${INTENTSHIELD_E2E_CACHE:-$HOME/.cache/intentshield-e2e}
kit=${E2E_KIT:-../shared/live-harness}
# The real filesystem MCP server, when scripts/proxy-setup.sh installed it (a node program).
fs=$cache/mcp-fs/node_modules/.bin/mcp-server-filesystem
if [ -z "${MCP_FS_SERVER:-}" ] && [ -x "$fs" ] && command -v node >/dev/null 2>&1; then
  export MCP_FS_SERVER=$fs
fi
# The Python MCP SDK's virtual environment, when scripts/proxy-setup.sh made it.
if [ -x "$cache/py/bin/python3" ]; then
  export PATH="$cache/py/bin:$PATH"
fi
# The harness CLIs, installed before the tests run (and said so), not silently inside them.
if [ "${INTENTSHIELD_E2E:-}" != skip ] && command -v node >/dev/null 2>&1 &&
   command -v npm >/dev/null 2>&1 && [ -f "$kit/install.sh" ]; then
  missing=()
  for h in claude gemini codex; do
    [ -x "$cache/$h/node_modules/.bin/$h" ] || missing+=("$h")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "scripts/test.sh: the end-to-end tests need the real harness CLIs (${missing[*]}), not in $cache yet."
    echo "  Installing them now with scripts/e2e-setup.sh from the npm registry: about 900 MB, once."
    echo "  To skip the end-to-end tests instead, run: INTENTSHIELD_E2E=skip scripts/test.sh"
    bash scripts/e2e-setup.sh "${missing[@]}" || echo "scripts/test.sh: e2e setup failed: the end-to-end tests will skip"
  fi
fi
skips=$(mktemp)
out=$(mktemp)
trap 'rm -f "$skips" "$out"' EXIT
export INTENTSHIELD_SKIP_LOG=$skips
status=0
cargo test --no-fail-fast 2>&1 | tee "$out" || status=$?
# Totals over every test binary's "test result:" line.
read -r passed failed ignored < <(awk '/^test result:/ {
    for (i = 1; i <= NF; i++) {
      if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i; if ($(i+1) ~ /^ignored/) g += $i
    }
  } END { print p+0, f+0, g+0 }' "$out")
nskip=$(sort -u "$skips" | wc -l)
echo
echo "== scripts/test.sh summary"
echo "tests: $((passed - nskip)) passed, $nskip skipped (counted as passed by cargo), $failed failed, $ignored ignored"
if [ "$nskip" -gt 0 ]; then
  echo "skipped (the test returned early; what it checks did not run here):"
  sort -u "$skips" | sed 's/^SKIPPED /  /'
fi
if [ "$status" -ne 0 ]; then
  echo "cargo test failed (exit $status)"
fi
exit "$status"
