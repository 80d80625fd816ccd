#!/usr/bin/python3
# scrapes-to-promtool.py: a `promtool test rules` file from recorded xpud scrapes (tests/e2e/xpud-alerts.sh).
#
#   scrapes-to-promtool.py --rules RULES --scrapes DIR --expect FILE [--instance I] [--job J]
#                          [--tail-down N] [--tail-absent M] [--never-fires ALERT,...] > test.yaml
#
# DIR holds scrape-NNNN.prom, the /metrics bodies of consecutive xpud samples; scrape i becomes the
# sample at minute i of promtool's clock (interval 1m), every series with instance and job added,
# as a scrape by Prometheus would. A series missing from a scrape after being in the previous one
# gets a staleness marker, as Prometheus writes one. After the recording the target goes down:
# N minutes of up 0 (every xpud series stale), then M minutes without any up series (the target is
# gone). `up` is the one series written here, not recorded: Prometheus makes it, not xpud.
#
# FILE says which alerts must fire, one per line (tab-separated):
#   ALERT  FIRST  LAST|-  LABEL...
# FIRST: the first scrape index where the condition holds; LAST: the last one ("-": to the end of the
# recording). LABEL: name=value, "@gpu=N" (vendor, gpu, uuid, pci_bus_id of gpu N as recorded) or
# "@target" (instance and job). The alert must be firing at every minute k with
# FIRST + for <= k <= LAST (its `for` read from RULES) and no other alert may fire at any minute:
# every rule gets an alert_rule_test at every minute of the test. The severity (the rule's labels)
# and the annotations (its templates, which may use {{ $labels.NAME }} only) are expected as the
# rule gives them. Every rule must fire somewhere, except those named by --never-fires.
#
# Bad input (an unreadable scrape, an unknown alert, a template it cannot render) ends it with
# status 1 and a message naming the input.
import argparse
import json
import os
import re
import sys

import yaml


def die(msg):
    sys.stderr.write("scrapes-to-promtool: %s\n" % msg)
    sys.exit(1)


LABEL_RE = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)')


def parse_labels(text, where):
    """name="value",... (text format escapes) -> dict; dies on anything else."""
    out = {}
    pos = 0
    while pos < len(text):
        m = LABEL_RE.match(text, pos)
        if not m:
            die("%s: cannot read the labels %r" % (where, text))
        out[m.group(1)] = re.sub(r'\\(.)', lambda e: {"n": "\n"}.get(e.group(1), e.group(1)), m.group(2))
        pos = m.end()
    return out


def parse_scrape(path):
    """{series text: value text} of one /metrics body; series text is name{labels} as served."""
    series = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            key, sep, value = line.rpartition(" ")
            if not sep or not key:
                die("%s:%d: not a sample line: %r" % (path, n, line))
            try:
                float(value)
            except ValueError:
                die("%s:%d: not a number: %r" % (path, n, value))
            if key in series:
                die("%s:%d: the series %s twice" % (path, n, key))
            series[key] = value
    if not series:
        die("%s: no sample" % path)
    return series


def with_target(key, instance, job):
    """name{labels} -> name{labels,instance=...,job=...}."""
    extra = 'instance="%s",job="%s"' % (instance, job)
    if key.endswith("}"):
        return key[:-1] + "," + extra + "}"
    return key + "{" + extra + "}"


def minutes(text, where):
    if text in (None, "", 0, "0"):
        return 0
    m = re.fullmatch(r"(\d+)([smh])", str(text))
    if not m:
        die("%s: a for: of %r (expected Ns, Nm or Nh)" % (where, text))
    n, unit = int(m.group(1)), m.group(2)
    secs = n * {"s": 1, "m": 60, "h": 3600}[unit]
    if secs % 60:
        die("%s: for: %s is not whole minutes" % (where, text))
    return secs // 60


def render(template, labels, where):
    def sub(m):
        return labels.get(m.group(1), "<no value>")

    out = re.sub(r"\{\{ \$labels\.([a-zA-Z_][a-zA-Z0-9_]*) \}\}", sub, template)
    if "{{" in out:
        die("%s: a template this script cannot render (only {{ $labels.NAME }}): %r" % (where, template))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rules", required=True)
    ap.add_argument("--scrapes", required=True)
    ap.add_argument("--expect", required=True)
    ap.add_argument("--instance", default="node-a")
    ap.add_argument("--job", default="xpud")
    ap.add_argument("--tail-down", type=int, default=0)
    ap.add_argument("--tail-absent", type=int, default=0)
    ap.add_argument("--never-fires", default="")
    a = ap.parse_args()

    try:
        with open(a.rules, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
        rules = [r for g in doc["groups"] for r in g["rules"] if "alert" in r]
    except (OSError, yaml.YAMLError, KeyError, TypeError) as e:
        die("%s: not a rule file: %s" % (a.rules, e))
    by_name = {}
    for r in rules:
        if r["alert"] in by_name:
            die("%s: the alert %s twice" % (a.rules, r["alert"]))
        by_name[r["alert"]] = r

    names = sorted(n for n in os.listdir(a.scrapes) if re.fullmatch(r"scrape-\d+\.prom", n))
    if not names:
        die("%s: no scrape-NNNN.prom" % a.scrapes)
    scrapes = [parse_scrape(os.path.join(a.scrapes, n)) for n in names]
    nrec = len(scrapes)
    total = nrec + a.tail_down + a.tail_absent

    # The identity labels of each gpu, from its xpu_up series.
    ident = {}
    for s in scrapes:
        for key in s:
            if key.startswith("xpu_up{"):
                lab = parse_labels(key[len("xpu_up{"):-1], "xpu_up")
                ident[lab["gpu"]] = {k: lab[k] for k in ("vendor", "gpu", "uuid", "pci_bus_id")}

    # input_series: recorded values, staleness markers where a series leaves, then the tail.
    keys = []
    seen = set()
    for s in scrapes:
        for key in s:
            if key not in seen:
                seen.add(key)
                keys.append(key)
    series = []
    for key in keys:
        vals = []
        prev = False
        for s in scrapes:
            if key in s:
                vals.append(s[key])
                prev = True
            else:
                vals.append("stale" if prev else "_")
                prev = False
        if a.tail_down or a.tail_absent:
            vals.append("stale" if prev else "_")
            vals.extend(["_"] * (a.tail_down + a.tail_absent - 1))
        series.append({"series": with_target(key, a.instance, a.job), "values": " ".join(vals)})
    up = ["1"] * nrec + ["0"] * a.tail_down
    if a.tail_absent:
        up += ["stale"] + ["_"] * (a.tail_absent - 1)
    series.append({"series": 'up{instance="%s",job="%s"}' % (a.instance, a.job), "values": " ".join(up)})

    # Expected alerts at each minute.
    firing = {n: [[] for _ in range(total)] for n in by_name}
    with open(a.expect, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line:
                continue
            where = "%s:%d" % (a.expect, n)
            parts = line.split("\t")
            if len(parts) < 3:
                die("%s: want ALERT FIRST LAST LABEL...: %r" % (where, line))
            alert, first, last = parts[0], parts[1], parts[2]
            if alert not in by_name:
                die("%s: no alert %s in %s" % (where, alert, a.rules))
            try:
                first = int(first)
                last = nrec - 1 if last == "-" else int(last)
            except ValueError:
                die("%s: FIRST and LAST are scrape indices: %r" % (where, line))
            labels = {}
            for tok in parts[3:]:
                if tok == "@target":
                    labels.update(instance=a.instance, job=a.job)
                elif tok.startswith("@gpu="):
                    g = tok[len("@gpu="):]
                    if g not in ident:
                        die("%s: no gpu %s in the recording" % (where, g))
                    labels.update(ident[g])
                else:
                    k, sep, v = tok.partition("=")
                    if not sep:
                        die("%s: a label is name=value: %r" % (where, tok))
                    labels[k] = v
            rule = by_name[alert]
            where = "%s: %s" % (a.rules, alert)
            ann = {k: render(v, labels, where) for k, v in (rule.get("annotations") or {}).items()}
            exp = {"exp_labels": dict(labels, **(rule.get("labels") or {})), "exp_annotations": ann}
            fr = first + minutes(rule.get("for"), "%s: %s" % (a.rules, alert))
            for k in range(fr, min(last, total - 1) + 1):
                firing[alert][k].append(exp)

    exempt = set(x for x in a.never_fires.split(",") if x)
    for name in by_name:
        if name not in exempt and not any(firing[name]):
            die("the alert %s fires nowhere in the expectations: record a fault for it" % name)

    tests = []
    for k in range(total):
        for name in by_name:
            tests.append({"eval_time": "%dm" % k, "alertname": name, "exp_alerts": firing[name][k]})
    out = {
        "rule_files": [os.path.abspath(a.rules)],
        "evaluation_interval": "1m",
        "tests": [{"interval": "1m", "input_series": series, "alert_rule_test": tests}],
    }
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
