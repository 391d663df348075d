#!/usr/bin/env bash
# Builds the release binary and replays the real hook events that Claude Code, Codex CLI and
# Gemini CLI sent (../shared/live-harness/samples), then one exfiltration session, through
# `intentshield check` (the hook's own code, with a private in-memory database).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/x86_64-unknown-linux-gnu/release/intentshield
samples=../shared/live-harness/samples
if [ -d "$samples" ]; then
  echo "== real events from ../shared/live-harness/samples"
  "$bin" check --harness auto "$samples"/*.json || true
else
  echo "skipping the real samples: $samples is absent"
fi
echo
echo "== an exfiltration session (prompt, injected tool result, send to the injected address)"
"$bin" check --harness claude scripts/session/*.json || true
