#!/usr/bin/env bash
# Builds the release binary (static, x86_64-unknown-linux-gnu: .cargo/config.toml) and puts it
# in a folder with its SHA-256 checksum file, shell completions and man page:
#
#   scripts/release.sh [--out DIR] [--bin PATH]
#
#   DIR/intentshield-<version>-x86_64-unknown-linux-gnu          the binary
#   DIR/intentshield-<version>-x86_64-unknown-linux-gnu.sha256   `sha256sum -c` checks it
#   DIR/intentshield.bash, _intentshield, intentshield.fish      completions
#   DIR/intentshield.1                                           man page
#
# --out defaults to dist/. --bin packages an already built binary instead of building one
# (the tests use it with the debug build). Refuses a binary that is not statically linked.
set -euo pipefail
cd "$(dirname "$0")/.."
out=dist
bin=
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    *) echo "usage: scripts/release.sh [--out DIR] [--bin PATH]" >&2; exit 2 ;;
  esac
done
target=x86_64-unknown-linux-gnu
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
if [ -z "$bin" ]; then
  echo "release: building intentshield $version for $target (about two minutes on 2 cores)"
  cargo build --release --locked --target "$target"
  bin=target/$target/release/intentshield
fi
[ -x "$bin" ] || { echo "release: $bin is not an executable" >&2; exit 1; }
# Static: no program interpreter (the dynamic loader) in its ELF headers.
if command -v readelf >/dev/null 2>&1 && readelf -l "$bin" | grep -q 'Requesting program interpreter'; then
  echo "release: $bin is dynamically linked; build it with .cargo/config.toml's +crt-static" >&2
  exit 1
fi
name=intentshield-$version-$target
mkdir -p "$out"
cp "$bin" "$out/$name"
chmod 755 "$out/$name"
(cd "$out" && sha256sum "$name" > "$name.sha256")
"$out/$name" completions bash > "$out/intentshield.bash"
"$out/$name" completions zsh > "$out/_intentshield"
"$out/$name" completions fish > "$out/intentshield.fish"
"$out/$name" man > "$out/intentshield.1"
echo "release: $out/$name ($(wc -c < "$out/$name") bytes)"
cat "$out/$name.sha256"
echo "release: check it with: (cd $out && sha256sum -c $name.sha256)"
