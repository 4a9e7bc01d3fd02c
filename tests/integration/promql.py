#!/usr/bin/env python3
"""promql.py: PromQL through a real Prometheus' HTTP API (/api/v1/query), for nodenames.sh.

promql.py URL value EXPR [TIME]
    the first sample's value, or "none"
promql.py URL diskstats DEV T1 SECS BEFORE AFTER
    each node_disk_* family's move over [T1-SECS, T1] against two lines of
    /proc/diskstats; one "ok|bad<TAB>what" line per family
promql.py URL pair DEV TIME JOB NODE_EXPORTER_JOB
    each node_disk_* family's sample at TIME under the two jobs: the same value
promql.py URL dashboards TIME DASHBOARD.json JOB INSTANCE DEV
    every expression of the shipped dashboard and of node-mixin's disk panels
    at TIME; one "ok|bad<TAB>what" line each (ok: it returned series, the
    dashboard's a number, node-mixin's above 0)
"""
import json
import re
import sys
import urllib.parse
import urllib.request

# node_exporter's diskstats families in /proc/diskstats' order: name, scale
# (1 as counted, 512 sectors to bytes, 0.001 milliseconds to seconds), and
# whether it is a gauge (compared at T1, not over the run).
FAMILIES = [
    ("node_disk_reads_completed_total", 1, False),
    ("node_disk_reads_merged_total", 1, False),
    ("node_disk_read_bytes_total", 512, False),
    ("node_disk_read_time_seconds_total", 0.001, False),
    ("node_disk_writes_completed_total", 1, False),
    ("node_disk_writes_merged_total", 1, False),
    ("node_disk_written_bytes_total", 512, False),
    ("node_disk_write_time_seconds_total", 0.001, False),
    ("node_disk_io_now", 1, True),
    ("node_disk_io_time_seconds_total", 0.001, False),
    ("node_disk_io_time_weighted_seconds_total", 0.001, False),
    ("node_disk_discards_completed_total", 1, False),
    ("node_disk_discards_merged_total", 1, False),
    ("node_disk_discarded_sectors_total", 1, False),
    ("node_disk_discard_time_seconds_total", 0.001, False),
    ("node_disk_flush_requests_total", 1, False),
    ("node_disk_flush_requests_time_seconds_total", 0.001, False),
]

# node-mixin's (prometheus/node_exporter, docs/node-mixin) expressions that
# use node_disk_*, with its config: nodeExporterSelector job="node",
# diskDeviceSelector device!="" (its rules' default; the newer dashboards'
# default device regex leaves loop devices out), rateInterval 1m.
NODE_MIXIN = [
    # dashboards/node.libsonnet, lib/prom-mixin.libsonnet: "Node Exporter / Nodes",
    # the instance variable and the "Disk I/O" panel.
    ("Nodes: instance variable", 'node_uname_info{job="node", sysname!="Darwin"}'),
    ("Nodes: Disk I/O read",
     'rate(node_disk_read_bytes_total{job="node", instance="$instance", device!=""}[$__rate_interval])'),
    ("Nodes: Disk I/O written",
     'rate(node_disk_written_bytes_total{job="node", instance="$instance", device!=""}[$__rate_interval])'),
    ("Nodes: Disk I/O io time",
     'rate(node_disk_io_time_seconds_total{job="node", instance="$instance", device!=""}[$__rate_interval])'),
    # dashboards/use.libsonnet: "USE Method / Node" (instance variable,
    # "Disks", "Disk IO Utilisation", "Disk IO Saturation"), over the
    # recording rules of rules/rules.libsonnet.
    ("USE Node: instance variable", 'up{job="node"}'),
    ("USE Node: Disks", 'count(node_disk_io_now{job="node", instance="$instance"})'),
    ("USE Node: Disk IO Utilisation",
     'instance_device:node_disk_io_time_seconds:rate1m{job="node", instance="$instance"}'),
    ("USE Node: Disk IO Saturation",
     'instance_device:node_disk_io_time_weighted_seconds:rate1m{job="node", instance="$instance"}'),
    # dashboards/use.libsonnet: "USE Method / Cluster", row "Disk IO".
    ("USE Cluster: Disk IO Utilisation",
     'instance_device:node_disk_io_time_seconds:rate1m{job="node"}'
     ' / scalar(count(instance_device:node_disk_io_time_seconds:rate1m{job="node"}))'),
    ("USE Cluster: Disk IO Saturation",
     'instance_device:node_disk_io_time_weighted_seconds:rate1m{job="node"}'
     ' / scalar(count(instance_device:node_disk_io_time_weighted_seconds:rate1m{job="node"}))'),
    # lib/linux/targets/disk.libsonnet: "Node Exporter / Node Filesystem and Disk", disk(device).
    ("Filesystem and Disk: read bytes/s",
     'irate(node_disk_read_bytes_total{job="node", instance="$instance", device!=""}[$__rate_interval])'),
    ("Filesystem and Disk: written bytes/s",
     'irate(node_disk_written_bytes_total{job="node", instance="$instance", device!=""}[$__rate_interval])'),
    ("Filesystem and Disk: io util",
     'irate(node_disk_io_time_seconds_total{job="node", instance="$instance", device!=""}[$__rate_interval])'),
    ("Filesystem and Disk: avg queue",
     'irate(node_disk_io_time_weighted_seconds_total{job="node", instance="$instance", device!=""}[$__rate_interval])'),
    ("Filesystem and Disk: avg write time",
     'irate(node_disk_write_time_seconds_total{job="node", instance="$instance", device!=""}[$__rate_interval])'
     ' / irate(node_disk_writes_completed_total{job="node", instance="$instance", device!=""}[$__rate_interval])'),
    ("Filesystem and Disk: avg read time",
     'irate(node_disk_read_time_seconds_total{job="node", instance="$instance", device!=""}[$__rate_interval])'
     ' / irate(node_disk_reads_completed_total{job="node", instance="$instance", device!=""}[$__rate_interval])'),
    ("Filesystem and Disk: reads",
     'irate(node_disk_reads_completed_total{job="node", instance="$instance", device!=""}[$__rate_interval])'),
    ("Filesystem and Disk: writes",
     'irate(node_disk_writes_completed_total{job="node", instance="$instance", device!=""}[$__rate_interval])'),
]


def query(url, expr, time=None):
    args = {"query": expr}
    if time is not None:
        args["time"] = time
    try:
        with urllib.request.urlopen(url + "/api/v1/query?" + urllib.parse.urlencode(args), timeout=10) as r:
            body = json.load(r)
    except Exception as e:  # an HTTP 400 (a bad expression) lands here
        return None, str(e)
    if body.get("status") != "success":
        return None, body.get("error", "?")
    return body["data"]["result"], None


def value(url, expr, time=None):
    res, _ = query(url, expr, time)
    return res[0]["value"][1] if res else "none"


def diskstats(url, dev, t1, secs, before, after):
    b = open(before).read().split()[3:]
    a = open(after).read().split()[3:]
    for i, (name, scale, gauge) in enumerate(FAMILIES[:min(len(a), len(FAMILIES))]):
        sel = '%s{job="node",device="%s"}' % (name, dev)
        raw = int(a[i]) if gauge else int(a[i]) - int(b[i])
        expr = sel if gauge else "%s - %s offset %ss" % (sel, sel, secs)
        got = value(url, expr, t1)
        if got == "none":
            print("bad\t%s: no series (/proc/diskstats: %d)" % (name, raw))
            continue
        # seconds back to the kernel's milliseconds, bytes back to sectors
        units = round(float(got) / scale) if scale != 1 else round(float(got))
        print("%s\t%s over the run through Prometheus: %s (%d), /proc/diskstats: %d" %
              ("ok" if units == raw else "bad", name, got, units, raw))


def pair(url, dev, time, ours, theirs):
    """Each family's sample at TIME under our job and under node_exporter's: the same double."""
    for name, _, _ in FAMILIES:
        a = value(url, '%s{job="%s",device="%s"}' % (name, ours, dev), time)
        b = value(url, '%s{job="%s",device="%s"}' % (name, theirs, dev), time)
        if a == "none" and b == "none":
            continue
        print("%s\t%s at an idle instant: blktop %s, node_exporter %s" %
              ("ok" if a == b else "bad", name, a, b))


def dashboard_exprs(path):
    """(what, expr) of every target and query variable of a Grafana dashboard."""
    d = json.load(open(path))
    out = []
    for v in d["templating"]["list"]:
        if v["type"] == "query":
            q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
            m = re.match(r"label_values\((.*),\s*(\w+)\)$", q)
            out.append(("variable %s" % v["name"], m.group(1) if m else q))

    def walk(panels):
        for p in panels:
            walk(p.get("panels", []))
            for t in p.get("targets", []):
                out.append(("panel '%s' %s" % (p["title"], t["refId"]), t["expr"]))
    walk(d["panels"])
    return out


def dashboards(url, time, path, job, instance, dev):
    subst = {"$job": job, "$instance": instance, "$device": dev,
             "$__rate_interval": "15s", "$__interval": "15s"}
    todo = [("blktop.json: " + w, e) for w, e in dashboard_exprs(path)]
    todo += [("node-mixin " + w, e) for w, e in NODE_MIXIN]
    for what, expr in todo:
        e = expr
        for k in sorted(subst, key=len, reverse=True):
            e = e.replace(k, subst[k])
        res, err = query(url, e, time)
        if res is None:
            print("bad\t%s: %s -> error %s" % (what, e, err))
        elif not res:
            print("bad\t%s: %s -> no series" % (what, e))
        else:
            v = float(res[0]["value"][1])
            good = v > 0 if what.startswith("node-mixin") else v == v
            print("%s\t%s: %d series, %s = %s" % ("ok" if good else "bad", what, len(res), e,
                                                  res[0]["value"][1]))


def main():
    url, mode, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    if mode == "value":
        print(value(url, *args))
    elif mode == "diskstats":
        diskstats(url, *args)
    elif mode == "pair":
        pair(url, *args)
    elif mode == "dashboards":
        dashboards(url, *args)
    else:
        sys.exit("promql.py: unknown mode " + mode)


if __name__ == "__main__":
    main()
