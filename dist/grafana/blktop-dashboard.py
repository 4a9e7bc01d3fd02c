#!/usr/bin/env python3
"""blktop-dashboard.py: writes dist/grafana/blktop.json, the Grafana dashboard of blktop's metrics (doc/metrics.md).

python3 dist/grafana/blktop-dashboard.py >dist/grafana/blktop.json; tests/integration/nodenames.sh
evaluates every expression of the result against a live blktop.
"""
import json
DS = {"type": "prometheus", "uid": "${datasource}"}
SEL = 'job="$job",instance="$instance"'
DSEL = SEL + ',device=~"$device"'
RI = "$__rate_interval"
panels = []
pid = [0]
y = [0]
def nid():
    pid[0] += 1
    return pid[0]
def row(title):
    panels.append({"type": "row", "title": title, "id": nid(), "collapsed": False,
                   "gridPos": {"h": 1, "w": 24, "x": 0, "y": y[0]}, "panels": []})
    y[0] += 1
def target(expr, legend, ref, fmt="time_series"):
    return {"datasource": DS, "expr": expr, "legendFormat": legend, "refId": ref,
            "format": fmt, "range": True, "instant": False}
def ts(title, desc, targets, unit, x, w=12, h=8, stack=False):
    p = {"type": "timeseries", "title": title, "description": desc, "id": nid(),
         "datasource": DS, "gridPos": {"h": h, "w": w, "x": x, "y": y[0]},
         "fieldConfig": {"defaults": {"unit": unit, "min": 0,
             "custom": {"drawStyle": "line", "lineWidth": 1, "fillOpacity": 10,
                        "stacking": {"mode": "normal" if stack else "none", "group": "A"}}},
             "overrides": []},
         "options": {"legend": {"displayMode": "table", "placement": "bottom", "showLegend": True,
                                "calcs": ["mean", "max"]},
                     "tooltip": {"mode": "multi", "sort": "desc"}},
         "targets": [target(e, l, chr(65 + i)) for i, (e, l) in enumerate(targets)]}
    panels.append(p)
    return p
def heat(title, desc, expr, x, w=8):
    p = {"type": "heatmap", "title": title, "description": desc, "id": nid(),
         "datasource": DS, "gridPos": {"h": 9, "w": w, "x": x, "y": y[0]},
         "repeat": "device", "repeatDirection": "h", "maxPerRow": 3,
         "options": {"calculate": False, "cellGap": 0,
                     "color": {"mode": "scheme", "scheme": "Oranges", "scale": "exponential",
                               "exponent": 0.5, "steps": 64, "fill": "dark-orange", "reverse": False},
                     "yAxis": {"unit": "s", "axisPlacement": "left", "reverse": False},
                     "rowsFrame": {"layout": "le"}, "cellValues": {"unit": "reqps"},
                     "tooltip": {"mode": "single", "yHistogram": True, "showColorScale": True},
                     "legend": {"show": True}, "filterValues": {"le": 1e-9},
                     "exemplars": {"color": "rgba(255,0,255,0.7)"}},
         "fieldConfig": {"defaults": {"custom": {"scaleDistribution": {"type": "linear"},
                         "hideFrom": {"legend": False, "tooltip": False, "viz": False}}}, "overrides": []},
         "targets": [dict(target(expr, "{{le}}", "A", "heatmap"), interval="")]}
    panels.append(p)
    return p

row("Latency (per device, from blktop's histograms)")
heat("Device time, reads: $device",
     "Issue to the driver to completion (biolatency's), requests per second per bucket of blktop_disk_device_time_seconds.",
     'sum by (le) (rate(blktop_disk_device_time_seconds_bucket{%s,device=~"$device",op="read"}[%s]))' % (SEL, RI), 0)
y[0] += 9
heat("Device time, writes: $device",
     "As the reads', for writes (write zeroes and secure erase count as writes, as in /proc/diskstats).",
     'sum by (le) (rate(blktop_disk_device_time_seconds_bucket{%s,device=~"$device",op="write"}[%s]))' % (SEL, RI), 0)
y[0] += 9
heat("Queue time, all operations: $device",
     "Start of the request to its issue to the driver: time spent in the block layer's queues and the I/O scheduler.",
     'sum by (le) (rate(blktop_disk_queue_time_seconds_bucket{%s,device=~"$device"}[%s]))' % (SEL, RI), 0)
y[0] += 9

row("Queue vs device time")
ts("Mean queue and device time",
   "Mean over the interval: queue time (start to issue) beside device time (issue to completion), per device.",
   [('sum by (device) (rate(blktop_disk_queue_time_seconds_sum{%s}[%s])) / sum by (device) (rate(blktop_disk_queue_time_seconds_count{%s}[%s]))' % (DSEL, RI, DSEL, RI), "{{device}} queue"),
    ('sum by (device) (rate(blktop_disk_device_time_seconds_sum{%s}[%s])) / sum by (device) (rate(blktop_disk_device_time_seconds_count{%s}[%s]))' % (DSEL, RI, DSEL, RI), "{{device}} device")],
   "s", 0)
ts("p99 queue and device time",
   "histogram_quantile over blktop's buckets (two a power of two: within one bucket of blktop's own p99).",
   [('histogram_quantile(0.99, sum by (device, le) (rate(blktop_disk_queue_time_seconds_bucket{%s}[%s])))' % (DSEL, RI), "{{device}} queue p99"),
    ('histogram_quantile(0.99, sum by (device, le) (rate(blktop_disk_device_time_seconds_bucket{%s}[%s])))' % (DSEL, RI), "{{device}} device p99")],
   "s", 12)
y[0] += 8

row("Throughput")
ts("Requests per second", "Block requests completed, by operation.",
   [('sum by (device, op) (rate(blktop_disk_requests_total{%s}[%s]))' % (DSEL, RI), "{{device}} {{op}}")], "reqps", 0, w=8)
ts("Bytes per second", "Bytes of the block requests completed, by operation.",
   [('sum by (device, op) (rate(blktop_disk_bytes_total{%s}[%s]))' % (DSEL, RI), "{{device}} {{op}}")], "Bps", 8, w=8)
ts("Utilisation and requests in flight",
   "Busy time per second (iostat's %util) and the requests in flight at the last tick.",
   [('rate(blktop_disk_busy_seconds_total{%s}[%s])' % (DSEL, RI), "{{device}} busy"),
    ('blktop_disk_in_flight_requests{%s}' % DSEL, "{{device}} in flight")], "percentunit", 16, w=8)
panels[-1]["fieldConfig"]["overrides"] = [{"matcher": {"id": "byFrameRefID", "options": "B"},
    "properties": [{"id": "unit", "value": "short"}, {"id": "custom.axisPlacement", "value": "right"}]}]
y[0] += 8
ts("Errors per second", "Block requests completed with an error.",
   [('sum by (device, op) (rate(blktop_disk_errors_total{%s}[%s]))' % (DSEL, RI), "{{device}} {{op}}")], "reqps", 0, w=24, h=6)
y[0] += 6

row("Cgroups")
ts("Disk bytes per second by cgroup", "Bytes of block requests, by the cgroup that submitted them (the 32 first seen, the rest as other).",
   [('sum by (cgroup, op) (rate(blktop_cgroup_disk_bytes_total{%s}[%s]))' % (SEL, RI), "{{cgroup}} {{op}}")], "Bps", 0, stack=True)
ts("File bytes per second by cgroup", "Bytes moved by read and write system calls on files, by cgroup: beside the disk bytes, what the page cache absorbed.",
   [('sum by (cgroup, op) (rate(blktop_cgroup_file_bytes_total{%s}[%s]))' % (SEL, RI), "{{cgroup}} {{op}}")], "Bps", 12, stack=True)
y[0] += 8

row("blktop itself")
ts("Lost and dropped events per second",
   "What the kernel could not hand over (lost), block requests and calls of which no record came, and events of devices past the cap (dropped). Non-zero: the figures above undercount.",
   [('rate(blktop_lost_events_total{%s}[%s])' % (SEL, RI), "lost events"),
    ('rate(blktop_lost_requests_total{%s}[%s])' % (SEL, RI), "lost requests"),
    ('rate(blktop_lost_calls_total{%s}[%s])' % (SEL, RI), "lost calls"),
    ('rate(blktop_dropped_events_total{%s}[%s])' % (SEL, RI), "dropped events")], "short", 0, w=8)
ts("blktop's CPU", "CPU seconds per second: blktop's own process, and its BPF programs as the kernel counts them.",
   [('rate(blktop_cpu_seconds_total{%s}[%s])' % (SEL, RI), "user space"),
    ('rate(blktop_bpf_run_seconds_total{%s}[%s])' % (SEL, RI), "BPF programs")], "percentunit", 8, w=8)
ts("Cost per event", "Kernel and user-space CPU time per record taken from the kernel.",
   [('rate(blktop_bpf_run_seconds_total{%s}[%s]) / rate(blktop_events_total{%s}[%s])' % (SEL, RI, SEL, RI), "BPF per event"),
    ('rate(blktop_cpu_seconds_total{%s}[%s]) / rate(blktop_events_total{%s}[%s])' % (SEL, RI, SEL, RI), "user space per event"),
    ('rate(blktop_events_total{%s}[%s])' % (SEL, RI), "events per second")], "s", 16, w=8)
panels[-1]["fieldConfig"]["overrides"] = [{"matcher": {"id": "byFrameRefID", "options": "C"},
    "properties": [{"id": "unit", "value": "short"}, {"id": "custom.axisPlacement", "value": "right"}]}]
y[0] += 8

def var(name, label, query, multi=False):
    return {"name": name, "label": label, "type": "query", "datasource": DS,
            "query": {"query": query, "refId": "PrometheusVariableQueryEditor-VariableQuery"},
            "definition": query, "refresh": 2, "sort": 1, "hide": 0,
            "multi": multi, "includeAll": multi, "allValue": ".+" if multi else None,
            "current": {}, "options": [], "regex": ""}

dash = {
    "title": "blktop",
    "uid": "blktop",
    "description": "Block I/O as blktop traces it: per-device latency heatmaps, queue vs device time, per-cgroup bytes, lost events, blktop's own cost (doc/metrics.md).",
    "tags": ["blktop", "storage"],
    "editable": True,
    "graphTooltip": 1,
    "time": {"from": "now-1h", "to": "now"},
    "refresh": "30s",
    "timezone": "",
    "schemaVersion": 39,
    "version": 1,
    "links": [],
    "annotations": {"list": [{"builtIn": 1, "datasource": {"type": "grafana", "uid": "-- Grafana --"},
                              "enable": True, "hide": True, "iconColor": "rgba(0, 211, 255, 1)",
                              "name": "Annotations & Alerts", "type": "dashboard"}]},
    "templating": {"list": [
        {"name": "datasource", "label": "Data source", "type": "datasource", "query": "prometheus",
         "current": {}, "hide": 0, "refresh": 1, "regex": "", "options": []},
        var("job", "Job", "label_values(blktop_scrapes_total, job)"),
        var("instance", "Instance", 'label_values(blktop_scrapes_total{job="$job"}, instance)'),
        var("device", "Device", 'label_values(blktop_disk_requests_total{job="$job",instance="$instance"}, device)', True),
    ]},
    "panels": panels,
}
print(json.dumps(dash, indent=2))
