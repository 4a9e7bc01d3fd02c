#!/usr/bin/env python3
"""cells.py A B: compare two `tmux capture-pane -N -e -p` screens cell by cell as they
look: character, background, attributes, and foreground except under blanks. tmux leaves
out cells cleared to the end of a line (whatever their background), so a cell missing on
one side only has to be a blank on the other. The figures of blktop's own cost in the
header ("cpu   1.2% bpf   0.3%", fixed width) differ from run to run: their characters
are not compared, their colours are. Prints the first differences; exit 1 if any."""
import re
import sys

SGR = re.compile(r'\x1b\[([0-9;:]*)m')


def parse(path):
    rows = []
    st = {'fg': 'd', 'bg': 'd', 'attr': frozenset()}
    for line in open(path, encoding='utf-8', errors='replace').read().split('\n'):
        cells, pos = [], 0
        for m in SGR.finditer(line):
            for ch in line[pos:m.start()]:
                cells.append((ch, st['fg'], st['bg'], st['attr']))
            pos = m.end()
            p = [x for x in re.split('[;]', m.group(1))] or ['0']
            i = 0
            while i < len(p):
                v = int(p[i]) if p[i].isdigit() else 0
                if v == 0:
                    st = {'fg': 'd', 'bg': 'd', 'attr': frozenset()}
                elif v in (38, 48):
                    key = 'fg' if v == 38 else 'bg'
                    if p[i + 1] == '5':
                        st[key] = 'c' + p[i + 2]; i += 2
                    else:
                        st[key] = 'rgb' + ':'.join(p[i + 2:i + 5]); i += 4
                elif 30 <= v <= 37 or 90 <= v <= 97:
                    st['fg'] = 'a%d' % v
                elif 40 <= v <= 47 or 100 <= v <= 107:
                    st['bg'] = 'a%d' % v
                elif v == 39:
                    st['fg'] = 'd'
                elif v == 49:
                    st['bg'] = 'd'
                else:
                    st['attr'] = st['attr'] | {v}
                i += 1
        for ch in line[pos:]:
            cells.append((ch, st['fg'], st['bg'], st['attr']))
        rows.append(cells)
    return rows


def look(c):
    ch, fg, bg, attr = c
    return (ch, None if ch == ' ' else fg, bg, attr)


COST = re.compile(r'cpu [ 0-9.-]{5}%? bpf [ 0-9.-]{5}%?')


def mask_cost(rows):
    for cells in rows:
        text = ''.join(c[0] for c in cells)
        for m in COST.finditer(text):
            for x in range(m.start(), m.end()):
                cells[x] = ('#',) + cells[x][1:]
    return rows


a, b = mask_cost(parse(sys.argv[1])), mask_cost(parse(sys.argv[2]))
diffs = 0
for y in range(max(len(a), len(b))):
    ra = a[y] if y < len(a) else []
    rb = b[y] if y < len(b) else []
    for x in range(max(len(ra), len(rb))):
        if x >= len(ra) or x >= len(rb):
            ca = cb = ' '
            if x < len(ra):
                ca = ra[x][0]
            if x < len(rb):
                cb = rb[x][0]
        else:
            ca, cb = look(ra[x]), look(rb[x])
        if ca != cb:
            diffs += 1
            if diffs <= 5:
                print('row %d col %d: %r != %r' % (y, x, ca, cb))
print('%d cells differ' % diffs)
sys.exit(1 if diffs else 0)
