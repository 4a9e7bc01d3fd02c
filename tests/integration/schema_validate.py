#!/usr/bin/env python3
"""schema_validate.py SCHEMA NAME FILE... [-- NAME FILE...]...: each group's
JSON (a file of one object, or of one a line) against doc/blktop.schema.json,
in one process (the schema's own check, 1.8 s of CPU, done once). For group K
it prints up to 3 errors, indented, then "group K: N objects (KINDS), M invalid".
A dump's rows: at most 500 of each type (jsonschema takes ~1 ms an object).
"""
import json
import sys

# Not this script's directory: its numbers.py would hide the standard module.
sys.path.pop(0)
import jsonschema  # noqa: E402

schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
plain = jsonschema.Draft202012Validator(schema)

# A value's verdict under a subschema depends on nothing else (the schema has
# no $dynamicRef), so a first pass keeps each verdict it finds, by subschema
# and value: a $ref's, and each of properties' (an interval differs from the
# last in its ts alone, and oneOf tries each object against every kind). A
# value known invalid yields one error that says so; an object the first pass
# finds invalid is validated again by the plain validator, for its errors.
# -J of the fixtures: 9.0 -> 2 s of CPU.
verdicts = {}
# Each value's key, by id, while the object that holds it is validated (oneOf
# asks for it once a kind).
reprs = {}


def key(x):
    # repr tells 1 from 1.0 and True; equal values written in another key
    # order are only two entries.
    if not isinstance(x, (dict, list)):
        return (type(x).__name__, x)
    k = reprs.get(id(x))
    if k is None:
        k = reprs[id(x)] = repr(x)
    return k


def known(validator, sub, x, run):
    k = (id(sub), key(x))
    ok = verdicts.get(k)
    if ok is None:
        errs = list(run())
        verdicts[k] = not errs
        yield from errs
    elif not ok:
        yield jsonschema.ValidationError("invalid (a verdict kept)")


plain_ref = jsonschema.Draft202012Validator.VALIDATORS["$ref"]


def ref_once(validator, ref, instance, sch):
    yield from known(validator, sch, instance,
                     lambda: plain_ref(validator, ref, instance, sch))


def properties_once(validator, properties, instance, sch):
    if not validator.is_type(instance, "object"):
        return
    for prop, sub in properties.items():
        if prop in instance:
            x = instance[prop]
            yield from known(validator, sub, x,
                             lambda: validator.descend(x, sub, path=prop, schema_path=prop))


fast = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    {"$ref": ref_once, "properties": properties_once})(schema)


def objects(path):
    text = open(path, encoding="utf-8").read()
    try:
        return [json.loads(text)]
    except ValueError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def group(k, paths):
    n = bad = 0
    kinds = set()
    for path in paths:
        per_type = {}
        for o in objects(path):
            if "type" in o and "interval_s" not in o:
                per_type[o["type"]] = per_type.get(o["type"], 0) + 1
                if per_type[o["type"]] > 500:
                    continue
            n += 1
            kinds.add("interval" if "interval_s" in o else "run" if "anomaly_rule" in o else "dump")
            reprs.clear()
            if next(fast.iter_errors(o), None) is None:
                continue
            errs = sorted(plain.iter_errors(o), key=lambda e: list(e.absolute_path))
            bad += 1
            if not errs:
                print("    %s: the kept verdicts say invalid, the plain validator valid" % path)
            elif bad <= 3:
                    e = errs[0]
                    print("    %s: %s at %s" % (path, e.message[:300],
                                                  "/".join(map(str, e.absolute_path))))
    print("group %d: %d objects (%s), %d invalid" % (k, n, " ".join(sorted(kinds)), bad))


groups, cur = [], None
for a in sys.argv[2:]:
    if a == "--":
        cur = None
    elif cur is None:
        cur = []
        groups.append(cur)
    else:
        cur.append(a)
for k, paths in enumerate(groups, 1):
    group(k, paths)
