"""bss_switch.py: a u32 of a running BPF object's .bss map, found by name in
the map's BTF, set in place through bpftool (bench/run-ab.sh flips one every
phase; bench/with-switch.sh sets one for a whole run).

    python3 bench/bss_switch.py MAP VAR VALUE    (exit 1: no such map, or no VAR in it)
"""
import json
import subprocess
import sys


def bpftool(*args):
    return json.loads(subprocess.check_output(["bpftool", "-j"] + list(args)))


class BssVar:
    """VAR of the newest map named MAP (a .bss: one value at key 0)."""

    def __init__(self, mapname, var):
        maps = [m for m in bpftool("map", "show") if m.get("name") == mapname]
        if not maps:
            raise LookupError("no map %s" % mapname)
        self.map = maps[-1]
        types = bpftool("btf", "dump", "id", str(self.map["btf_id"]))["types"]
        self.off = None
        for t in types:
            if t.get("kind") == "DATASEC" and t.get("name") == ".bss":
                for v in t["vars"]:
                    if types[v["type_id"] - 1].get("name") == var:
                        self.off = v["offset"]
        if self.off is None:
            raise LookupError("no %s in %s" % (var, mapname))

    def set(self, value):
        key = ["0", "0", "0", "0"]
        mid = str(self.map["id"])
        cur = [int(b, 16) for b in bpftool("map", "lookup", "id", mid, "key", *key)["value"]]
        cur[self.off:self.off + 4] = list(int(value).to_bytes(4, "little"))
        subprocess.check_call(["bpftool", "map", "update", "id", mid, "key", *key,
                               "value", *[str(b) for b in cur]])


if __name__ == "__main__":
    try:
        BssVar(sys.argv[1], sys.argv[2]).set(int(sys.argv[3]))
    except LookupError as e:
        sys.exit("bss_switch: %s" % e)
