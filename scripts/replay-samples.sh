#!/usr/bin/env bash
# Builds the release binary and replays the real hook events that Claude Code, Codex CLI and
# Gemini CLI sent (tests/fixtures/samples, the repository's copy of
# ../shared/live-harness/samples; SOURCE.md there), then one exfiltration session, through
# `intentshield check` (the hook's own code, with a private in-memory database).
# INTENTSHIELD_SAMPLES=DIR replays another folder of recorded events instead.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/x86_64-unknown-linux-gnu/release/intentshield
samples=${INTENTSHIELD_SAMPLES:-tests/fixtures/samples}
if compgen -G "$samples/*.json" >/dev/null; then
  echo "== real events from $samples"
  "$bin" check --harness auto "$samples"/*.json || true
else
  echo "skipping the real samples: no *.json in $samples"
fi
echo
echo "== an exfiltration session (prompt, injected tool result, send to the injected address)"
"$bin" check --harness claude scripts/session/*.json || true
