#!/usr/bin/env python3
"""Leave-one-source-out (LOSO) evaluation of the detector: rules only, learned scorer only, and
both, on each source family held out in turn. Writes the "Leave-one-source-out evaluation"
section of docs/evaluation.md (between its heading and `<!-- loso:end -->`; scripts/eval.py
writes the "Detection report" section and leaves this one alone).

Usage: scripts/loso.py [CORPUS_DIR] [--release] [--no-doc]
  CORPUS_DIR defaults to ../shared/corpora (skipped, with a message, when absent).
  --release  use (and build) the release binary instead of the debug one.
  --no-doc   print the section instead of writing docs/evaluation.md.

Method, per held-out source family S (agentdojo_* files form one family, as do tensor_trust_*):
- Rules: the rule set is the "tuning". A rule counts for S only when it also fires (weight > 0)
  on at least one injection of another family; rules that fire on S's injections alone are
  disabled while S is held out. Rule findings per item come from
  `intentshield scan --jsonl DIR --json`; the score is recomputed as the detector does (per
  family the highest weight, +1 when two strong rules of a family agree, +1 for findings in
  decoded text); flagged at >= 3.
- Learned scorer: trained on the hook kinds (tool_output, description, argument) of every other
  family by scripts/train-scorer.py's code, scores S's items (max over windows). Its thresholds
  for S come from the held-out scores of the *other* families' benign items (each scored by a
  model that did not see it): weight 3 at the logit that flags <= FP_STRONG of them, weight 2 at
  FP_WEAK.
- Combined: the rules' score plus the scorer's weight as one more family; flagged at >= 3.
Figures are on the held-out family's hook-kind items only; pooled rows add up every family's
held-out items (each item is held out exactly once).

Needs numpy, scipy and scikit-learn (installed into ~/.cache/intentshield-ml by the trainer's
bootstrap on first run). The tests do not need this script.
"""

import collections
import importlib.util
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "evaluation.md")
HEADING = "## Leave-one-source-out evaluation"
END = "<!-- loso:end -->"
HOOK_KINDS = ("tool_output", "description", "argument")

spec = importlib.util.spec_from_file_location("train_scorer", os.path.join(ROOT, "scripts", "train-scorer.py"))
ts = importlib.util.module_from_spec(spec)
sys.modules["train_scorer"] = ts
spec.loader.exec_module(ts)


def rule_score(findings, allowed=None):
    """The rules' score from findings `[rule, family, weight, origin]` (the learned scorer's weight is added on top by the detector)."""
    fams = {}
    decoded = False
    for rule, fam, w, origin in findings:
        if w <= 0 or fam == "learned" or (allowed is not None and rule not in allowed):
            continue
        if origin not in ("text", "normalizer") and not rule.startswith("hidden."):
            decoded = True
        m, strong = fams.get(fam, (0, 0))
        fams[fam] = (max(m, w), strong + (w >= 2))
    return sum(m + (1 if s >= 2 else 0) for m, s in fams.values()) + (1 if decoded else 0)


def pct(a, b):
    return f"{100.0 * a / b:.1f}%" if b else "-"


def main():
    ts.ensure_venv()
    import numpy as np

    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    corpus = os.path.abspath(args[0] if args else os.path.join(ROOT, "..", "shared", "corpora"))
    if not os.path.isdir(corpus):
        print(f"loso: SKIPPED: corpus folder {corpus} not found", file=sys.stderr)
        return
    release = "--release" in sys.argv
    profile = "release" if release else "debug"
    build = ["cargo", "build", "--quiet"] + (["--release"] if release else [])
    subprocess.run(build, cwd=ROOT, check=True)
    exe = os.path.join(ROOT, "target", "x86_64-unknown-linux-gnu", profile, "intentshield")
    out = subprocess.run([exe, "scan", "--jsonl", corpus, "--json"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    scanned = {}
    for line in out.splitlines():
        if line.strip():
            r = json.loads(line)
            scanned[str(r["id"])] = r

    # Every item (prompts too, for the rules' "fires on another family" test).
    all_items = ts.load(corpus, kinds=HOOK_KINDS + ("prompt",))
    items = [d for d in all_items if d["kind"] in HOOK_KINDS]
    fz = ts.Featurized(items)

    # Sanity: our recomputation of the rules' score equals the detector's (without learned).
    mismatch = 0
    for d in items:
        r = scanned[str(d["id"])]
        learned_w = max([f[2] for f in r["findings"] if f[1] == "learned"] or [0])
        if learned_w == 0 and rule_score(r["findings"]) != r["score"]:
            mismatch += 1
    if mismatch:
        print(f"loso: warning: {mismatch} items where the recomputed rule score differs", file=sys.stderr)

    # Rules: which families' injections each rule fires on.
    fires = collections.defaultdict(set)
    for d in all_items:
        if d["label"] != "injection":
            continue
        for rule, fam, w, _ in scanned[str(d["id"])]["findings"]:
            if w > 0 and fam != "learned":
                fires[rule].add(d["_family"])

    families = sorted(set(fz.fam))
    print("training the held-out models ...", file=sys.stderr)
    scores = ts.loso_scores(fz)

    def evaluate(fp_weak, fp_strong):
        """counts[(family, kind)] = [inj, rules, model, both, dev, ben, fp rules, fp model, fp both, fp dev]"""
        counts = collections.defaultdict(lambda: [0] * 10)
        for f in families:
            allowed = {r for r, fs in fires.items() if fs - {f}}
            # Thresholds from the other families' held-out benign scores.
            ben = [scores[i] for i in range(len(items)) if fz.y[i] == 0 and fz.fam[i] != f]
            tw = ts.threshold_at(ben, fp_weak)
            tst = ts.threshold_at(ben, fp_strong) if fp_strong is not None else float("inf")
            t_alone = ts.threshold_at(ben, 0.005)
            for i, d in enumerate(items):
                if fz.fam[i] != f:
                    continue
                r = scanned[str(d["id"])]
                rs = rule_score(r["findings"], allowed)
                lw = 3 if scores[i] >= tst else 2 if scores[i] >= tw else 0
                flags = (rs >= 3, scores[i] >= t_alone, rs + lw >= 3, r["flagged"])
                c = counts[(f, d["kind"])]
                if d["label"] == "injection":
                    c[0] += 1
                    for k, v in enumerate(flags):
                        c[1 + k] += v
                else:
                    c[5] += 1
                    for k, v in enumerate(flags):
                        c[6 + k] += v
        return counts

    disabled = {f: sorted(r for r, fs in fires.items() if fs == {f}) for f in families}
    all_ben = [scores[i] for i in range(len(items)) if fz.y[i] == 0]
    t_weak_all = ts.threshold_at(all_ben, ts.FP_WEAK)
    t_strong_all = ts.threshold_at(all_ben, ts.FP_STRONG) if ts.FP_STRONG is not None else float("inf")

    # Threshold sweep: pooled "both" figures for other operating points.
    sweep = []
    for fs_ in (None, 0.001, 0.0025, 0.005):
        for fw in (0.005, 0.01, 0.02, 0.05):
            c = [0] * 10
            for v in evaluate(fw, fs_).values():
                c = [x + y for x, y in zip(c, v)]
            sweep.append((fs_, fw, c))
    counts = evaluate(ts.FP_WEAK, ts.FP_STRONG)

    def add(a, b):
        return [x + y for x, y in zip(a, b)]

    lines = [HEADING, ""]
    lines.append(
        "Generated by `scripts/loso.py`. Each source family of the development corpora is held out in turn: the "
        "learned scorer is trained on the others, and a hand-written rule counts for the held-out family only if it "
        "also fires on an injection of another family (rules that match one source's template alone are disabled "
        "for it). *Model* is the scorer alone, flagging at the logit that flags 0.5% of the other families' held-out benign texts. *Rules* and *both* are flagged at score ≥ 3, the model adding weight 3 at its strong "
        "threshold and 2 at its weak one (thresholds chosen from the other families' held-out benign scores, at "
        f"{'never' if ts.FP_STRONG is None else f'{ts.FP_STRONG * 100:.2f}%'} and {ts.FP_WEAK * 100:.1f}% FP). *Dev* is the shipped detector (all rules, the "
        "model trained on every family) on the same items: the tuning-data figure, for comparison. Hook kinds only "
        "(tool_output, description, argument); benign texts are the held-out family's benign items."
    )
    lines.append("")
    lines.append("| held-out family | kind | injections | rules | model | both | dev | benign | FP rules | FP model | FP both | FP dev |")
    lines.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    per_kind = collections.defaultdict(lambda: [0] * 10)
    total = [0] * 10
    for (f, k), c in sorted(counts.items()):
        lines.append(
            f"| {f} | {k} | {c[0]} | {pct(c[1], c[0])} | {pct(c[2], c[0])} | {pct(c[3], c[0])} | {pct(c[4], c[0])} "
            f"| {c[5]} | {pct(c[6], c[5])} | {pct(c[7], c[5])} | {pct(c[8], c[5])} | {pct(c[9], c[5])} |"
        )
        per_kind[k] = add(per_kind[k], c)
        total = add(total, c)
    for k in HOOK_KINDS:
        c = per_kind.get(k)
        if c:
            lines.append(
                f"| **pooled** | {k} | {c[0]} | {pct(c[1], c[0])} | {pct(c[2], c[0])} | {pct(c[3], c[0])} | "
                f"{pct(c[4], c[0])} | {c[5]} | {pct(c[6], c[5])} | {pct(c[7], c[5])} | {pct(c[8], c[5])} | {pct(c[9], c[5])} |"
            )
    c = total
    lines.append(
        f"| **pooled** | **hook kinds** | {c[0]} | {pct(c[1], c[0])} | {pct(c[2], c[0])} | {pct(c[3], c[0])} | "
        f"{pct(c[4], c[0])} | {c[5]} | {pct(c[6], c[5])} | {pct(c[7], c[5])} | {pct(c[8], c[5])} | {pct(c[9], c[5])} |"
    )
    lines.append("")
    lines.append(
        f"Counts (pooled, hook kinds): rules {c[1]}, model {c[2]}, both {c[3]}, dev {c[4]} of {c[0]} injections; "
        f"false positives rules {c[6]}, model {c[7]}, both {c[8]}, dev {c[9]} of {c[5]} benign texts."
    )
    lines.append("")
    lines.append(
        f"The shipped scorer's thresholds (from all families' held-out benign scores): weak (weight 2) logit ≥ "
        f"{t_weak_all:.3f}, strong (weight 3) logit ≥ {t_strong_all:.3f} (inf: never)."
    )
    lines.append("")
    lines.append(
        "Threshold choice (pooled, hook kinds, *both*): the model's strong threshold (weight 3, flags alone) and weak "
        "threshold (weight 2, needs a rule) at these held-out benign FP rates of the other families. "
        "The shipped operating point was chosen by looking at this sweep, so the held-out figure above is "
        "somewhat optimistic: the choice of the point itself saw every family."
    )
    lines.append("")
    lines.append("| strong at FP | weak at FP | recall both | FP both |")
    lines.append("|---:|---:|---:|---:|")
    for fs_, fw, c in sweep:
        mark = " ← shipped" if (fs_, fw) == (ts.FP_STRONG, ts.FP_WEAK) else ""
        name = "never" if fs_ is None else f"{fs_ * 100:.2f}%"
        lines.append(f"| {name} | {fw * 100:.1f}% | {pct(c[3], c[0])} | {pct(c[8], c[5])} ({c[8]}){mark} |")
    lines.append("")
    lines.append("Rules disabled when their family is held out (they fire on no other family's injection):")
    lines.append("")
    for f in families:
        if disabled[f]:
            lines.append(f"- {f}: " + ", ".join(f"`{r}`" for r in disabled[f]))
    lines.append("")
    lines.append("### The learned scorer")
    lines.append("")
    lines.append(
        "`src/detect/learned.rs`: logistic regression over hashed features of the normalised text (ASCII lower-cased, "
        "whitespace runs folded): byte 3-, 4- and 5-grams, word unigrams and word bigrams, CRC-32 hashed into "
        f"2^{ts.BITS} buckets; weights quantised to i16 in the generated `src/detect/learned/weights.rs` "
        f"({(1 << ts.BITS) * 2 // 1024} KiB of read-only data in the binary). A text's logit is the maximum over "
        f"windows of two {ts.BLOCK}-byte blocks, so text before an injection cannot dilute it beyond one block. Trained by "
        f"`scripts/train-scorer.py` (L2, C = {ts.C_REG}, each source family and each label weighted equally) on the hook "
        "kinds of the development corpora; prompts are not used (adding them lowered the held-out recall at 0.5% FP). "
        "It adds the finding `learned.scorer` (family `learned`) with weight 2 at its weak threshold, so it flags only "
        "together with a rule of another family; the sweep above showed that letting it flag alone (weight 3) adds "
        "false positives on unseen benign sources (garak's clean reports, PyPI READMEs) and no recall. It is never used "
        "for prompts and never removes evidence."
    )
    lines.append("")
    lines.append("Training data (the development corpora, `../shared/corpora`; licences as their README gives them):")
    lines.append("")
    for name, lic in (
        ("AgentDojo 0.1.35 (tool outputs, payloads, descriptions, tool-call arguments)", "MIT"),
        ("BIPIA (Microsoft)", "MIT; contexts CC BY-SA"),
        ("garak 0.17.1 latent-injection probes", "Apache-2.0"),
        ("InjecAgent attacker cases", "MIT"),
        ("MCP Security Bench", "MIT"),
        ("invariant MCP injection experiments", "no licence file"),
        ("MCP reference servers' tool descriptions", "MIT"),
        ("GitHub MCP server tool descriptions", "MIT"),
        ("PyPI README sections", "per package"),
    ):
        lines.append(f"- {name}: {lic}")
    lines.append("")
    lines.append(END)
    section = "\n".join(lines) + "\n"

    if "--no-doc" in sys.argv:
        print(section)
        return
    old = open(DOC, encoding="utf-8").read() if os.path.exists(DOC) else "# Evaluation\n\n"
    a = old.find(HEADING + "\n")
    if a >= 0:
        b = old.find(END, a)
        b = len(old) if b < 0 else b + len(END) + 1
        new = old[:a] + section + old[b:]
    else:
        # After the "Detection report" section when there is one, else at the end.
        import re

        m = re.search(r"^## Detection report\n.*?(?=^## (?!#)|\Z)", old, flags=re.S | re.M)
        if m:
            new = old[: m.end()] + section + "\n" + old[m.end():]
        else:
            new = old.rstrip("\n") + "\n\n" + section
    with open(DOC, "w", encoding="utf-8") as f:
        f.write(new)
    print(f"wrote {DOC}")
    print(section)


if __name__ == "__main__":
    main()
