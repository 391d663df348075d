#!/usr/bin/env python3
"""Write configs/agentdojo-trusted.toml: an example `[[trusted_destinations]]` list for the
AgentDojo replay, per suite, from the clean (default-environment) traces only, never from a
value an injection wrote:

the people and accounts the user deals with, read from structured fields of the clean
outputs the way scripts/agentdojo_registries.py reads them for the contracts: addresses in
  the recipients, cc, bcc, participants, shared_with and owner fields (workspace, travel), and
  the counterparties of the bank history (recipient and sender IBANs, the user's own account
  left out). Only outputs of reads (get_, search_, list_, read_) count, not the echo of a call
  the agent made; senders of received mail and free text (a web page, a message body) are not
  read.

The destinations a user types in a prompt are theirs in that session already and are not
listed: a list holds what the user's own records hold. It is what a user who keeps an address
book and a payee list would write; with it the replay's
critical destinations that are on no list and in no prompt are denied, not asked
(`provenance.critical_destination`, rule `provenance.untrusted_critical`).

Usage: scripts/agentdojo_trusted.py [TRACES] [--out FILE]
       (default data/agentdojo/traces.jsonl.gz, configs/agentdojo-trusted.toml)
"""
import gzip
import json
import re
import sys

args = [a for a in sys.argv[1:]]
out_path = "configs/agentdojo-trusted.toml"
if "--out" in args:
    i = args.index("--out")
    out_path = args[i + 1]
    del args[i : i + 2]
path = args[0] if args else "data/agentdojo/traces.jsonl.gz"

ADDR = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]*\w")
FIELDS = ("recipients", "cc", "bcc", "participants", "shared_with", "owner")
OWN_ACCOUNT = "DE89370400440532013000"
READS = ("get_", "search_", "list_", "read_")

# suite -> kind -> set of values
found = {}


def add(suite, kind, value):
    found.setdefault(suite, {}).setdefault(kind, set()).add(value)


with gzip.open(path, "rt") as f:
    for line in f:
        t = json.loads(line)
        if t["kind"] != "clean":
            continue
        suite = t["suite"]
        for s in t["steps"]:
            e = s["event"]
            if e.get("hook_event_name") != "PostToolUse":
                continue
            # Only what the user's accounts hold (reads), not the echo of a call the agent made
            # (a sent mail's output repeats its recipients, whoever chose them).
            tool = e.get("tool_name", "").split("__")[-1]
            if not tool.startswith(READS):
                continue
            text = "".join(b.get("text", "") for b in e["tool_response"] if isinstance(b, dict))
            key = None
            for ln in text.split("\n"):
                m = re.match(r"\s*-?\s*(\w+):\s*(.*)", ln)
                if m:
                    key, rest = m.group(1), m.group(2)
                    if key in FIELDS:
                        for a in ADDR.findall(rest):
                            add(suite, "email", a.lower())
                    if suite == "banking" and key in ("recipient", "sender"):
                        v = rest.strip().strip("'")
                        if re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}", v) and v != OWN_ACCOUNT:
                            add(suite, "iban", v)
                    continue
                m2 = re.match(r"\s*-\s+(\S+@\S+)\s*$", ln)
                if m2 and key in FIELDS:
                    for a in ADDR.findall(m2.group(1)):
                        add(suite, "email", a.lower())

lines = [
    "# Example [[trusted_destinations]] for the AgentDojo replay (scripts/eval-agentdojo.sh --trusted),",
    "# written by scripts/agentdojo_trusted.py from the clean runs only: the people and payees the",
    "# structured fields of the clean runs' reads name (recipients, cc, bcc, participants,",
    "# shared_with, owner; the bank history's counterparties, the user's own account left out).",
    "# No value an injection wrote. Use it as the protected config file (`replay --config`), or copy",
    "# the tables into yours: with a list configured, a send, payment, invitation or share to a",
    "# destination on no list and in no prompt is denied (provenance.critical_destination, rule provenance.untrusted_critical).",
]
total = 0
for suite in sorted(found):
    lines.append("")
    lines.append(f"# --- {suite} ---")
    for kind in ("email", "iban", "host"):
        for v in sorted(found[suite].get(kind, ())):
            lines.append("")
            lines.append("[[trusted_destinations]]")
            lines.append(f'value = "{v}"')
            lines.append(f'kind = "{kind}"')
            total += 1
with open(out_path, "w") as f:
    f.write("\n".join(lines) + "\n")
print(
    f"{out_path}: {total} entries ("
    + ", ".join(f"{s} {sum(len(v) for v in found[s].values())}" for s in sorted(found))
    + ")",
    file=sys.stderr,
)
