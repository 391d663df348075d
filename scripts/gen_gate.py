#!/usr/bin/env python3
"""Builds src/threats/gate_data.rs: the benign gate set of the threat memory.

From the benign texts of ../shared/corpora (every file's `label == "benign"` items, the
pypi_readmes README sections among them) it collects
- the 32-bit hashes of three-word shingles found in at least two distinct benign texts (the
  same tokenizer and hash as src/threats/fingerprint.rs), the most frequent GATE_MAX of them,
  as one sorted u32 array;
- the registrable-looking domains (last two labels) named in at least two benign texts, at
  most DOMAINS_MAX of them, plus a short list of hosting and package domains;
- a benign probe text (sentences most likely to trip an instruction-like rule, at most
  PROBE_MAX bytes) that every threat-pack rule must not match.

Deterministic: the same corpora give the same file. Usage: scripts/gen_gate.py [CORPORA_DIR]
"""
import json, os, re, sys
from collections import Counter

GATE_MAX = 32768
DOMAINS_MAX = 1500
PROBE_MAX = 48 * 1024
M64 = (1 << 64) - 1
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPORA = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared", "corpora")
EXTRA_DOMAINS = ["github.com", "githubusercontent.com", "gitlab.com", "google.com", "pypi.org",
                 "python.org", "npmjs.com", "npmjs.org", "crates.io", "docs.rs", "rust-lang.org",
                 "microsoft.com", "apple.com", "amazonaws.com", "cloudflare.com", "mozilla.org",
                 "wikipedia.org", "stackoverflow.com", "readthedocs.io", "readthedocs.org",
                 "anthropic.com", "openai.com", "golang.org", "go.dev", "docker.com", "docker.io"]


def word_hash(w):
    h = 0xcbf29ce484222325
    for b in w.encode("utf-8"):
        h ^= b
        h = (h * 0x100000001b3) & M64
    return h


def mix(z):
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M64
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
    return z ^ (z >> 31)


def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M64


def shingle(a, b, c):
    return mix(a ^ rotl(mix(b ^ rotl(mix(c), 17)), 31)) >> 32


VALUE_DOT = re.compile(r"[A-Za-z]\.[A-Za-z]")
SPLIT = re.compile(r"[^\w]|_", re.UNICODE)


def is_value_token(t):
    if "@" in t or "://" in t or any(ch.isdigit() and ch.isascii() for ch in t):
        return True
    core = t.strip("".join(ch for ch in set(t) if not ch.isalnum()))
    return bool(VALUE_DOT.search(core))


def sentences(text):
    out = []
    for line in text.split("\n"):
        cur = []
        for raw in line.split():
            ends = raw.endswith((".", "!", "?", ":", ";"))
            if not is_value_token(raw):
                for w in SPLIT.split(raw):
                    if w and len(cur) < 96:
                        cur.append(w.lower())
            if ends and cur:
                out.append(cur)
                cur = []
        if cur:
            out.append(cur)
    return out


def shingles(words):
    hs = [word_hash(w) for w in words]
    return {shingle(hs[i], hs[i + 1], hs[i + 2]) for i in range(len(hs) - 2)}


DOMAIN = re.compile(r"\b((?:[a-z0-9-]+\.)+[a-z]{2,})\b")
PROBE_WORDS = re.compile(r"\b(ignore|instruction|instructions|must|send|forward|do not|assistant|"
                         r"system|important|password|secret|token|delete|execute|run)\b", re.I)


def main():
    df = Counter()
    domains = Counter()
    probe = []
    for name in sorted(os.listdir(CORPORA)):
        if not name.endswith(".jsonl"):
            continue
        with open(os.path.join(CORPORA, name), encoding="utf-8") as f:
            for line in f:
                try:
                    item = json.loads(line)
                except ValueError:
                    continue
                if item.get("label") != "benign":
                    continue
                text = item.get("text") or ""
                seen = set()
                for ws in sentences(text):
                    seen |= shingles(ws)
                    if len(ws) >= 6:
                        s = " ".join(ws)
                        if PROBE_WORDS.search(s):
                            probe.append(s)
                df.update(seen)
                ds = {".".join(d.split(".")[-2:]) for d in DOMAIN.findall(text.lower())}
                domains.update(d for d in ds if not d.split(".")[-1] in ("py", "md", "txt", "json", "js", "rs", "toml", "yaml", "yml", "html", "cfg", "ini", "sh", "ts", "rst", "io") or d.endswith(".io"))
    common = [h for h, n in df.most_common() if n >= 2][:GATE_MAX]
    common.sort()
    doms = sorted(set([d for d, n in domains.most_common() if n >= 2][:DOMAINS_MAX]) | set(EXTRA_DOMAINS))
    # Probe: distinct sentences, shortest first up to the budget (deterministic).
    probe = sorted(set(probe), key=lambda s: (len(s), s))
    text, size = [], 0
    for s in probe:
        if size + len(s) + 1 > PROBE_MAX:
            break
        text.append(s)
        size += len(s) + 1
    out = os.path.join(ROOT, "src", "threats", "gate_data.rs")
    with open(out, "w", encoding="utf-8") as f:
        f.write("//! Generated by scripts/gen_gate.py from ../shared/corpora's benign texts; do not edit.\n")
        f.write(f"//! {len(common)} shingle hashes ({len(common) * 4} bytes), {len(doms)} domains, "
                f"{size} bytes of probe text.\n\n")
        f.write("/// Shingle hashes found in two or more benign texts, sorted.\n")
        f.write("pub(super) static SHINGLES: &[u32] = &[\n")
        for i in range(0, len(common), 8):
            f.write("    " + ", ".join(str(h) for h in common[i:i + 8]) + ",\n")
        f.write("];\n\n/// Domains named in two or more benign texts (and common hosting ones), sorted.\n")
        f.write("pub(super) static DOMAINS: crate::strtab::StrTable = crate::str_table![\n")
        for d in doms:
            f.write(f"    {json.dumps(d)},\n")
        f.write("];\n\n/// Benign sentences a threat-pack rule must not match, one per line.\n")
        f.write("pub(super) static PROBE: &str = " + json.dumps("\n".join(text), ensure_ascii=False) + ";\n")
    print(f"{out}: {len(common)} shingles, {len(doms)} domains, {size} probe bytes")


if __name__ == "__main__":
    main()
