#!/usr/bin/env python3
"""Write the registries the example contracts use for the AgentDojo replay, from the clean
(default-environment) traces only: what the user's own mailbox, calendar, drive and bank
history say about the people and accounts they deal with, never a value an injection wrote.

- configs/contracts/workspace-contacts.json: addresses in the structured fields of the clean
  workspace outputs that name people the user deals with (recipients, cc, bcc, participants,
  shared_with, owner), not senders of received mail and not free text.
- configs/contracts/bank-payees.json: the counterparties of the clean banking outputs'
  transactions (recipient and sender fields), with the user's own account left out.

Usage: scripts/agentdojo_registries.py [TRACES]   (default data/agentdojo/traces.jsonl.gz)
"""
import gzip, json, re, sys

path = sys.argv[1] if len(sys.argv) > 1 else "data/agentdojo/traces.jsonl.gz"
ADDR = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
FIELDS = ("recipients", "cc", "bcc", "participants", "shared_with", "owner")
contacts, payees = set(), set()
with gzip.open(path, "rt") as f:
    for line in f:
        t = json.loads(line)
        if t["kind"] != "clean":
            continue
        for s in t["steps"]:
            e = s["event"]
            if e["hook_event_name"] != "PostToolUse":
                continue
            text = "".join(b.get("text", "") for b in e["tool_response"] if isinstance(b, dict))
            key = None
            for ln in text.split("\n"):
                m = re.match(r"\s*-?\s*(\w+):\s*(.*)", ln)
                if m:
                    key = m.group(1)
                    rest = m.group(2)
                    if t["suite"] == "workspace" and key in FIELDS:
                        contacts.update(a.lower() for a in ADDR.findall(rest))
                    if t["suite"] == "banking" and key in ("recipient", "sender"):
                        v = rest.strip().strip("'")
                        if re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}", v):
                            payees.add(v)
                    continue
                m2 = re.match(r"\s*-\s+(\S+@\S+)\s*$", ln)
                if m2 and t["suite"] == "workspace" and key in FIELDS:
                    contacts.update(a.lower() for a in ADDR.findall(m2.group(1)))
# The user's own account (the sender of their outgoing transfers) is no payee.
payees.discard("DE89370400440532013000")
with open("configs/contracts/workspace-contacts.json", "w") as f:
    json.dump({"contacts": [{"email": a} for a in sorted(contacts)]}, f, indent=1)
    f.write("\n")
with open("configs/contracts/bank-payees.json", "w") as f:
    json.dump({"payees": [{"iban": p} for p in sorted(payees)]}, f, indent=1)
    f.write("\n")
print(f"{len(contacts)} contacts, {len(payees)} payees")
