#!/bin/sh
# The linker cargo runs for x86_64-unknown-linux-gnu (.cargo/config.toml): `cc` with the same
# arguments, plus, for a release link with lld, an order for the code the hook runs.
#
# Why: a hook process lives about 2 ms, and a good share of it is page faults on code it touches
# for the first time. The kernel maps a file's pages 16 at a time (fault-around), so code that is
# used together should lie together. configs/hook-order.txt lists the functions one hook event
# runs (made by scripts/hook-order.py from callgrind runs of the hook); lld places them first, in
# that order (--symbol-ordering-file). Measured: 20 to 24 fewer page faults and about 80 us less
# per hook process (README "Figures", "Code order").
#
# The list holds names without the hashes that change from one build profile or version to the
# next (Rust's legacy `17h<16 hex>E` suffix, v0 crate disambiguators `Cs<base62>_`, LLVM's
# `.llvm.<n>` and `.<n>` suffixes of local names); this script finds the real names in the
# objects being linked (nm) and writes them in the list's order. Anything missing (nm, awk, the
# list, lld as the linker cc runs, a temporary file whose path lld can take) links as before, and
# so does an ordered link that fails: the order only changes where code lies, never what it does.
set -u
cc=${INTENTSHIELD_LINK_CC:-cc}
list="$(dirname "$0")/../configs/hook-order.txt"
out=
ld=
prev=
for a in "$@"; do
  [ "$prev" = "-o" ] && out=$a
  # The last -fuse-ld wins, as in cc itself.
  case $a in -fuse-ld=*) ld=${a#-fuse-ld=} ;; esac
  prev=$a
done
# Only the intentshield binary (and its unit tests, which share its name): not the benches or
# the integration tests, whose links would pay for nm over their objects and gain nothing.
case $out in
*/release/deps/intentshield-*) ;;
*) exec "$cc" "$@" ;;
esac
if [ "$ld" != lld ] || [ ! -r "$list" ] || ! command -v nm >/dev/null 2>&1; then
  exec "$cc" "$@"
fi
order=$(mktemp "${TMPDIR:-/tmp}/intentshield-order.XXXXXX") || exec "$cc" "$@"
log=$(mktemp "${TMPDIR:-/tmp}/intentshield-link.XXXXXX") || { rm -f "$order"; exec "$cc" "$@"; }
trap 'rm -f "$order" "$log"' EXIT HUP INT TERM
# -Wl, splits its argument at commas: a path holding one cannot be passed.
case $order in *,*) rm -f "$order" "$log"; exec "$cc" "$@" ;; esac
# One name per line; keys in the list's order, each followed by the names it stands for.
for a in "$@"; do
  case $a in
  *.o) nm --defined-only "$a" 2>/dev/null ;;
  esac
done | awk -v list="$list" '
  function key(n,   k) {
    k = n
    if (k !~ /^_(ZN|R)/) return k
    sub(/\.llvm\.[0-9]+$/, "", k)
    sub(/\.[0-9]+$/, "", k)
    if (k ~ /^_ZN/) sub(/17h[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]E$/, "", k)
    else if (k ~ /^_R/) gsub(/Cs[0-9A-Za-z]*_/, "C", k)
    return k
  }
  NF == 3 && $2 ~ /^[tTwW]$/ { k = key($3); names[k] = (k in names) ? names[k] "\n" $3 : $3 }
  END {
    while ((getline line < list) > 0) {
      if (line == "" || line ~ /^#/) continue
      # A C function (SQLite, libc) has no hash: its key is its name, in the archives.
      print (line in names) ? names[line] : line
    }
  }' >"$order"
# An ordered link that fails for any reason links again without the order (its errors, if it
# fails too, are the ones shown); the ordered link's warnings are shown when it succeeds.
if "$cc" "$@" -Wl,--symbol-ordering-file="$order" -Wl,--no-warn-symbol-ordering 2>"$log"; then
  cat "$log" >&2
  exit 0
fi
"$cc" "$@"
