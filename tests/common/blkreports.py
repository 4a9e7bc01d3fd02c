"""blkreports.py: a device's totals from blktop's JSON reports, and the same from /proc/diskstats.

Shared by tests/integration/compare.py and tests/kernels/check.py, which check
the one against the other.
"""

OPS = ("read", "write", "other")
KEYS = ("read_ios", "read_bytes", "write_ios", "write_bytes", "other_ios")


def device_totals(reports, dev):
    """The device's ios and bytes of each class, and its no_lat, summed over the reports."""
    tot = {}
    for r in reports:
        for d in r["devices"]:
            if d["name"] != dev:
                continue
            for op in OPS:
                tot[op + "_ios"] = tot.get(op + "_ios", 0) + d[op]["ios"]
                tot[op + "_bytes"] = tot.get(op + "_bytes", 0) + d[op]["bytes"]
                tot["no_lat"] = tot.get("no_lat", 0) + d[op]["no_lat"]
    return tot


def diskstats_delta(b, a):
    """What /proc/diskstats counted between two samples of tests/lib.sh's fields (lists of ints)."""
    return {
        "read_ios": a[0] - b[0], "read_bytes": (a[1] - b[1]) * 512,
        "write_ios": a[2] - b[2], "write_bytes": (a[3] - b[3]) * 512,
        "other_ios": (a[4] - b[4]) + (a[5] - b[5]),
    }
