#!/usr/bin/env python3
"""Builds and signs configs/threat-packs/baseline.pack.json from the public incidents in
../shared/cases (public-reports.jsonl, reports-2.jsonl).

- indicators: the attacker destinations those incidents name (hosts, URLs, domains);
- fingerprints: the injected texts (tool descriptions and tool outputs of the attack cases; the
  binary keeps only sentences outside the benign gate set when it installs the pack);
- rules: two families written for this project from the incidents' facts.

Signing: a fresh Ed25519 key pair is made with `intentshield threats pack keygen` in a private
temporary folder, the pack is signed with it (`threats pack sign`), the public key is written to
configs/threat-packs/baseline.pub (compiled into the binary: rebuild afterwards), and the secret
key is deleted. The secret key is never committed and never kept: a new baseline means a new key.

Usage: scripts/threat_pack.py --exe target/.../intentshield [--version N]
"""
import argparse, json, os, re, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CASES = os.path.join(ROOT, "..", "shared", "cases")
OUT = os.path.join(ROOT, "configs", "threat-packs")

RULES = [
    {"id": "baseline.sidenote_exfiltration", "family": "exfiltration",
     "literals": ["sidenote"],
     "pattern": r"(?:read|pass|send|include)[^.]{0,80}(?:content|contents|key|file)[^.]{0,60}\bas\s{1,3}'?sidenote'?"},
    {"id": "baseline.pixel_per_character", "family": "exfiltration",
     "literals": ["per character", "each character", "every character"],
     "pattern": r"(?:one|an|a single)\s{1,3}(?:image|picture|pixel|markdown image)\s{1,3}(?:per|for each|for every)\s{1,3}character"},
]


def texts(item):
    out = []
    ti = item.get("tool_input") or {}
    if isinstance(ti, dict) and isinstance(ti.get("description"), str):
        out.append(ti["description"])
    to = item.get("tool_output")
    if isinstance(to, str):
        out.append(to)
    elif to is not None:
        out.extend(s for s in re.findall(r'"((?:[^"\\]|\\.){60,})"', json.dumps(to)))
    return [t for t in out if len(t) >= 60]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", required=True)
    ap.add_argument("--version", type=int, default=1)
    a = ap.parse_args()
    indicators, fingerprints = {}, []
    for name in ("public-reports.jsonl", "reports-2.jsonl"):
        with open(os.path.join(CASES, name), encoding="utf-8") as f:
            for line in f:
                item = json.loads(line)
                if item["id"].startswith("fp-"):
                    continue
                blob = json.dumps(item.get("tool_input")) + " " + json.dumps(item.get("tool_output"))
                for host in re.findall(r"\b((?:[a-z0-9-]+\.)*(?:attacker|exfil|payload)\.invalid)\b", blob):
                    indicators[host] = "host"
                    base = ".".join(host.split(".")[-2:])
                    indicators[base] = "domain"
                if item.get("expected") in ("deny", "ask") or item.get("tool_output"):
                    fingerprints.extend(texts(item))
    pack = {"intentshield_pack": 1, "name": "baseline", "version": a.version, "rules": RULES,
            "indicators": [{"value": v, "kind": k} for v, k in sorted(indicators.items())],
            "fingerprints": sorted(set(fingerprints))}
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "baseline.pack.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(pack, f, indent=1, ensure_ascii=False)
        f.write("\n")
    tmp = tempfile.mkdtemp(prefix="is-pack-key-")
    try:
        os.chmod(tmp, 0o700)
        key = os.path.join(tmp, "baseline.key")
        db = os.path.join(tmp, "s.db")
        pub = subprocess.run([a.exe, "threats", "pack", "keygen", "--out", key, "--db", db],
                             check=True, capture_output=True, text=True).stdout.strip()
        subprocess.run([a.exe, "threats", "pack", "sign", path, "--key-file", key, "--db", db],
                       check=True, capture_output=True, text=True)
        with open(os.path.join(OUT, "baseline.pub"), "w") as f:
            f.write(pub + "\n")
        r = subprocess.run([a.exe, "threats", "pack", "install", path, "--key", pub, "--db", db],
                           capture_output=True, text=True)
        print(r.stdout.strip() or r.stderr.strip())
        if r.returncode != 0:
            sys.exit(1)
    finally:
        shutil.rmtree(tmp)  # the secret key goes with it
    print(f"{path}: {len(RULES)} rules, {len(indicators)} indicators, {len(pack['fingerprints'])} texts; "
          f"public key {pub} (rebuild to pin it)")


if __name__ == "__main__":
    main()
