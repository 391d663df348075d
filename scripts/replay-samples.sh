#!/usr/bin/env bash
# Builds the release binary and replays the real hook events that Claude Code, Codex CLI and
# Gemini CLI sent (tests/fixtures/samples, the repository's copy of
# ../shared/live-harness/samples; SOURCE.md there), then one exfiltration session, through
# `intentshield check` (the hook's own code, with a private in-memory database). Each line's
# first word is the verdict the harness really gets (a Claude Code rewrite is `ask`). Ends with
# one summary line: events per verdict and per harness.
# INTENTSHIELD_SAMPLES=DIR replays another folder of recorded events instead.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "building the release binary (cargo build --release; a few minutes the first time)..."
cargo build --release --quiet
bin=target/x86_64-unknown-linux-gnu/release/intentshield
samples=${INTENTSHIELD_SAMPLES:-tests/fixtures/samples}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if compgen -G "$samples/*.json" >/dev/null; then
  echo "== real events from $samples"
  "$bin" check --harness auto "$samples"/*.json | tee -a "$out" || true
else
  echo "skipping the real samples: no *.json in $samples"
fi
echo
echo "== an exfiltration session (prompt, injected tool result, send to the injected address)"
"$bin" check --harness claude scripts/session/*.json | tee -a "$out" || true
echo
# Decision lines start with the verdict; detail lines are indented.
awk '
  /^[a-z]/ { n++; v[$1]++; h[$3]++ }
  END {
    line = "summary: " n+0 " events;"
    split("allow ask deny error", order, " ")
    for (i = 1; i <= 4; i++) line = line " " order[i] " " v[order[i]]+0 (i < 4 ? "," : ";")
    split("claude codex cursor gemini", names, " ")
    hs = ""
    for (i = 1; i <= 4; i++) hs = hs (i > 1 ? ", " : "") names[i] " " h[names[i]]+0
    print line " per harness: " hs
  }' "$out"
