"""testlint.py: a check whose command runs on past && or || judges only its first part.

`check NAME [ A ] && grep B` runs check with `[ A ]` alone; the grep's status is
never counted. Prints each such check of tests/integration/*.sh and tests/kernels/*.sh
as FILE:LINE, exits 1 if there is one. Usage: testlint.py SRCDIR
"""
import glob
import re
import shlex
import sys


def logical_lines(text):
    """Yield (first line number, the line joined over \\ and trailing && / ||)."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        start, line = i, lines[i]
        while line.rstrip().endswith(("\\", "&&", "||")) and i + 1 < len(lines):
            i += 1
            line = line.rstrip().rstrip("\\") + " " + lines[i].strip()
        yield start + 1, line.strip()
        i += 1


def runs_on(line):
    """True when the check's words include an unquoted && or ||."""
    try:
        lex = shlex.shlex(line, posix=True, punctuation_chars="&|;")
        lex.whitespace_split = True
        return any(t in ("&&", "||") for t in lex)
    except ValueError:
        return False


def main():
    src = sys.argv[1]
    bad = []
    for path in sorted(glob.glob(src + "/tests/integration/*.sh") + glob.glob(src + "/tests/kernels/*.sh")):
        for num, line in logical_lines(open(path, encoding="utf-8").read()):
            if re.match(r"check\s", line) and runs_on(line):
                bad.append("%s:%d" % (path[len(src) + 1:], num))
    for b in bad:
        print(b)
    sys.exit(1 if bad else 0)


main()
