#!/bin/sh
# xferstat import --format table and compare --population, against
# numbers computed independently by Python (fractions and the statistics
# module), and the other features of "import what people have" through
# the command line: records in a pasted transcript, sessions.
#
# 40 tables are generated (seeded, 1-3 conditions, 2-12 runs, Time and/or
# Rate columns in s, ms, KiB/s or kB/s, Avg. and Dev. cells printed to 1-3
# decimals as the mean, the harmonic mean, the sample or the population SD,
# rounded or truncated, or off by a few units).  The expected verdict of
# every Avg./Dev. cell is worked out in exact rational arithmetic
# (Fraction; an SD is compared through its square), and each must be the
# one xferstat prints at that cell's FILE:LINE:COLUMN.  Needs no root.
. "${top_srcdir:-.}/tests/xferstat-lib.sh"
trap xs_cleanup EXIT
xs_mktemp
T=$xs_tmp
F=${abs_top_srcdir:-$top_srcdir}/tests/fixtures/xferstat

cat >"$T/gen.py" <<'EOF'
import random, sys, json
from fractions import Fraction as Fr
import statistics

out = sys.argv[1]
SIZE = 1048576

def fmt(v, d):
    # v is a Fraction; the decimal string with d digits, truncated toward 0
    q = int(v * 10**d)
    s = str(q).rjust(d + 1, "0")
    return (s[:-d] + "." + s[-d:]) if d else s

def rounded(v, d):
    q = int(v * 10**d + Fr(1, 2))
    s = str(q).rjust(d + 1, "0")
    return (s[:-d] + "." + s[-d:]) if d else s

def shows(x, p, d, square=False):
    """x (or sqrt(x) when square) printed as p with d decimals."""
    u = Fr(1, 10**d)
    p = Fr(p)
    m = set()
    if square:
        lo = max(p - u / 2, 0)
        if lo * lo <= x <= (p + u / 2) ** 2:
            m.add("rounded")
        if p * p <= x < (p + u) ** 2:
            m.add("truncated")
    else:
        if abs(x - p) <= u / 2:
            m.add("rounded")
        if p <= x < p + u:
            m.add("truncated")
    return m

def words(m):
    return "+".join(sorted(m))

def sqrt_fr(v):
    # a Fraction close to sqrt(v), to print from (30 digits)
    from decimal import Decimal, getcontext
    getcontext().prec = 40
    return Fr((Decimal(v.numerator) / Decimal(v.denominator)).sqrt())

cases = []
for seed in range(1, 41):
    rnd = random.Random(seed)
    nconds = rnd.randint(1, 3)
    kinds = rnd.choice([["Time"], ["Rate"], ["Time", "Rate"]])
    tunit = rnd.choice([("s", 1), ("ms", Fr(1, 1000))])
    runit = rnd.choice([("KiB/s", 1024), ("kB/s", 1000)])
    cols = []
    for c in range(nconds):
        for k in kinds:
            cols.append((c, k, tunit if k == "Time" else runit))
    nruns = [rnd.randint(2, 12) for _ in range(nconds)]
    cells = {}   # (col index) -> list of Fractions (printed values)
    for i, (c, k, u) in enumerate(cols):
        vals = []
        for r in range(nruns[c]):
            if k == "Time":
                base = rnd.uniform(5, 15) * (1000 if u[0] == "ms" else 1)
            else:
                base = rnd.uniform(50, 150)
            vals.append(Fr(f"{base:.2f}"))
        cells[i] = vals
    W = 14
    names = ["cond %d" % (c + 1) for c in range(nconds)]
    lines = ["Generated table %d" % seed, ""]
    have_head = nconds > 1 or rnd.random() < 0.5
    if have_head:
        head = " " * 5
        for c in range(nconds):
            head += names[c].rjust(W * len(kinds))
        lines.append(head)
    colrow = "Run  "
    for (c, k, u) in cols:
        colrow += ("%s (%s)" % (k, u[0])).rjust(W)
    lines.append(colrow)
    for r in range(max(nruns)):
        row = str(r + 1).ljust(5)
        for i, (c, k, u) in enumerate(cols):
            row += (fmt(cells[i][r], 2) if r < nruns[c] else "").rjust(W)
        lines.append(row.rstrip())
    expect = []
    for label in ("Avg.", "Dev."):
        row = label.ljust(5)
        lineno = len(lines) + 1
        for i, (c, k, u) in enumerate(cols):
            v = cells[i]
            n = len(v)
            d = rnd.randint(1, 3)
            mean = sum(v) / n
            harm = n / sum(1 / x for x in v)
            ss = sum((x - mean) ** 2 for x in v)
            var_s, var_p = ss / (n - 1), ss / n
            mode = rnd.choice(["round", "trunc", "off"])
            if label == "Avg.":
                which = rnd.choice(["mean", "harmonic"]) if k == "Rate" else "mean"
                x = mean if which == "mean" else harm
                p = rounded(x, d) if mode == "round" else fmt(x, d)
                if mode == "off":
                    p = fmt(Fr(p) + rnd.choice([-1, 1]) * Fr(rnd.randint(3, 9), 10**d), d)
                mm = shows(mean, p, d)
                if mm:
                    verdict = "mean " + words(mm)
                elif k == "Rate" and shows(harm, p, d):
                    verdict = "harmonic " + words(shows(harm, p, d))
                else:
                    verdict = "none"
            else:
                which = rnd.choice([var_s, var_p])
                x = sqrt_fr(which)
                p = rounded(x, d) if mode == "round" else fmt(x, d)
                if mode == "off":
                    p = fmt(Fr(p) + Fr(rnd.randint(3, 9), 10**d), d)
                ms, mp = shows(var_s, p, d, True), shows(var_p, p, d, True)
                parts = []
                if ms:
                    parts.append("sample " + words(ms))
                if mp:
                    parts.append("population " + words(mp))
                verdict = " | ".join(parts) if parts else "none"
            cell = p.rjust(W)
            col = len(row) + len(cell) - len(p) + 1
            row += cell
            expect.append(["t%02d.txt:%d:%d:" % (seed, lineno, col), verdict])
        lines.append(row)
    with open("%s/t%02d.txt" % (out, seed), "w") as f:
        f.write("\n".join(lines) + "\n")
    # runs: seconds of each condition, from the time or else the rate
    runs = {}
    for c in range(nconds):
        secs = []
        for r in range(nruns[c]):
            ti = [i for i, col in enumerate(cols) if col[0] == c and col[1] == "Time"]
            ri = [i for i, col in enumerate(cols) if col[0] == c and col[1] == "Rate"]
            if ti:
                secs.append(float(cells[ti[0]][r] * cols[ti[0]][2][1]))
            else:
                secs.append(float(SIZE / (cells[ri[0]][r] * cols[ri[0]][2][1])))
        runs[names[c] if have_head else "t%02d.txt" % seed] = secs
    cases.append({"file": "t%02d.txt" % seed, "expect": expect, "runs": runs,
                  "failed": sum(1 for e in expect if e[1] == "none")})
json.dump(cases, open(out + "/cases.json", "w"))
EOF

cat >"$T/verdict.py" <<'EOF'
import re, sys, json
# The verdict a check line states, in the generator's words.
def m(text):
    return "rounded+truncated" if text == "rounded or truncated alike" else text
def verdict(msg):
    if ": NOT the mean" in msg or ": NEITHER" in msg:
        return "none"
    g = re.search(r"the harmonic mean of \d+ runs \(total bytes / total time\), \S+ \(([^)]*)\)", msg)
    if g:
        return "harmonic " + m(g.group(1))
    g = re.search(r": the mean of \d+ runs, \S+ \(([^)]*)\)", msg)
    if g:
        return "mean " + m(g.group(1))
    g = re.search(r"both the sample SD, \S+ \(([^)]*)\), and the population SD, \S+ \(([^)]*)\)", msg)
    if g:
        return "sample %s | population %s" % (m(g.group(1)), m(g.group(2)))
    g = re.search(r"the sample SD \(divisor n-1\) of \d+ runs, \S+ \(([^)]*)\)", msg)
    if g:
        return "sample " + m(g.group(1))
    g = re.search(r"the population SD \(divisor n\) of \d+ runs, \S+ \(([^)]*)\)", msg)
    if g:
        return "population " + m(g.group(1))
    return "?"
cases = json.load(open(sys.argv[1]))
case = [c for c in cases if c["file"] == sys.argv[2]][0]
said = {}
for line in open(sys.argv[3]):
    g = re.match(r"xferstat: .*/(t\d+\.txt:\d+:\d+:) (.*)$", line.rstrip("\n"))
    if g:
        said[g.group(1)] = verdict(g.group(2))
bad = 0
for where, want in case["expect"]:
    got = said.get(where, "missing")
    if got != want:
        print("  %s want %r, xferstat says %r" % (where, want, got))
        bad += 1
if len(said) != len(case["expect"]):
    print("  %d checks printed, %d expected" % (len(said), len(case["expect"])))
    bad += 1
d = json.load(open(sys.argv[4]))
for s in d["sets"]:
    want = case["runs"].get(s["label"])
    got = [r["seconds"] for r in s["runs"]]
    if want is None or len(got) != len(want) or any(abs(a - b) > 1e-9 * b for a, b in zip(got, want)):
        print("  set %s: seconds %s, want %s" % (s["label"], got[:3], (want or [])[:3]))
        bad += 1
print(bad)
EOF

"$PY" "$T/gen.py" "$T" || exit 99
for f in "$T"/t??.txt; do
	b=$(basename "$f")
	"$XFERSTAT" import --size 1M -o "$T/$b.json" "$f" >"$T/$b.out" 2>&1
	rc=$?
	fails=$(xs_json "$T/cases.json" "[c['failed'] for c in d if c['file'] == '$b'][0]")
	check "$b: imported (exit $rc)" [ "$rc" -eq 0 ]
	bad=$("$PY" "$T/verdict.py" "$T/cases.json" "$b" "$T/$b.out" "$T/$b.json" | tee "$T/$b.why" | tail -1)
	head -n -1 "$T/$b.why"
	check "$b: every Avg./Dev. cell judged as Python judges it, runs as printed" [ "$bad" = 0 ]
	if [ "$fails" -gt 0 ]; then
		check "$b: summary counts $fails cells matching nothing" \
			grep -q "$fails Avg./Dev. cells match no statistic" "$T/$b.out"
		"$XFERSTAT" import --strict --size 1M -o "$T/strict.json" "$f" >/dev/null 2>&1
		check "$b: --strict refuses a table whose cells match nothing" [ $? -eq 2 ]
	fi
done

# compare --population: the Dev. row is the population SD (Python's
# pstdev), the default the sample SD (stdev).
f=$T/t01.txt.json
"$XFERSTAT" compare --csv "$f" >"$T/sample.csv" || exit 1
"$XFERSTAT" compare --csv --population "$f" >"$T/pop.csv" || exit 1
"$XFERSTAT" compare --no-plot --population "$f" >"$T/pop.txt" || exit 1
check "--population labels the row" grep -q "^Dev.(pop.) " "$T/pop.txt"
check "--population says what the row is" grep -q "population standard deviation (divisor n" "$T/pop.txt"
check "default: Dev. is the sample SD" grep -q "^Dev. = sample standard deviation" \
	"$("$XFERSTAT" compare --no-plot "$f" >"$T/s.txt"; echo "$T/s.txt")"
cat >"$T/sd.py" <<'EOF'
import csv, json, statistics, sys
d = json.load(open(sys.argv[1]))
rows = {r[0]: r[1:] for r in csv.reader(open(sys.argv[2]))}
dev = rows[sys.argv[3]]
bad = 0
for i, s in enumerate(d["sets"]):
    t = [r["seconds"] for r in s["runs"]]
    rate = [r["bytes"] / r["seconds"] for r in s["runs"]]
    f = statistics.pstdev if sys.argv[3] == "Dev.(pop.)" else statistics.stdev
    for got, want in ((float(dev[2 * i]), f(t)), (float(dev[2 * i + 1]), f(rate))):
        if abs(got - want) > 1e-9 * want:
            print("  set %s: %r, want %r" % (s["label"], got, want))
            bad += 1
print(bad)
EOF
check "--population: Dev. = statistics.pstdev of times and rates" \
	[ "$("$PY" "$T/sd.py" "$f" "$T/pop.csv" "Dev.(pop.)" | tail -1)" = 0 ]
check "default: Dev. = statistics.stdev of times and rates" \
	[ "$("$PY" "$T/sd.py" "$f" "$T/sample.csv" "Dev." | tail -1)" = 0 ]
# xferstat's own --population table, imported back: its Dev. row is the
# population SD of its (printed) runs.
"$XFERSTAT" import --size 1M "$T/pop.txt" >/dev/null 2>"$T/back.out"
check "compare's own table reads back as a table" grep -q "pop.txt: table: " "$T/back.out"
check "its Dev.(pop.) cells are found to be population SDs" grep -q "the population SD (divisor n)" "$T/back.out"

# Records in a pasted transcript: after prompts and quote markers, text
# after them, several in one line, one cut short.
printf '%s\n' \
	'$ irdaspray -c 10 host Transmitted 102400 bytes in 9.87 seconds (10.13 kbytes/s) $ irdaspray -c 10 host' \
	'> Transmitted 102400 bytes in 9.91 seconds (10.09 kbytes/s)Received 102400 bytes in 10.02 seconds (9.98 kbytes/s) bye' \
	'# Transmitted 1000 bytes in 2 seconds (0.5 kbytes/s) Transmitted 102400 bytes in 9.9' >"$T/mail.txt"
"$XFERSTAT" import -o "$T/mail.json" "$T/mail.txt" 2>"$T/mail.out"
check "transcript: 4 runs" grep -q "mail.txt: irspray: 4 runs, 0 lines without a run, 0 not recognised, 0 blank, 1 records cut or changed" "$T/mail.out"
check "transcript: the cut record named at FILE:LINE:COLUMN" grep -q "mail.txt:3:54: irspray record cut or changed" "$T/mail.out"
check "transcript: times as printed" \
	[ "$(xs_json "$T/mail.json" '[r["seconds"] for s in d["sets"] for r in s["runs"]]')" = "[9.87, 9.91, 2, 10.02]" ]
"$XFERSTAT" import --strict -o "$T/none.json" "$T/mail.txt" 2>/dev/null
check "transcript: --strict refuses the cut record" [ $? -eq 2 ]
check "transcript: --strict wrote nothing" [ ! -e "$T/none.json" ]

# Sessions: two NetPIPE sweeps and a third cut short; --label joins them.
{ cat "$F/NPtcp-stdout.txt" "$F/NPtcp-stdout.txt"; head -n 20 "$F/NPtcp-stdout.txt"; printf '  16:      45 bytes   4345 times -->     24.8'; } >"$T/np.txt"
"$XFERSTAT" import -o "$T/np.json" "$T/np.txt" 2>"$T/np.out"
check "sessions: np.txt#1 and np.txt#2, 82 runs each" \
	[ "$(xs_json "$T/np.json" '[(s["label"], len(s["runs"])) for s in d["sets"]]')" = "[('np.txt#1', 82), ('np.txt#2', 82)]" ]
check "sessions: the cut one reported, not imported" grep -q "np.txt:193:3: session np.txt#3 cut short" "$T/np.out"
"$XFERSTAT" import --label sweeps -o "$T/np1.json" "$T/np.txt" 2>/dev/null
check "sessions: --label joins them" \
	[ "$(xs_json "$T/np1.json" '[(s["label"], len(s["runs"])) for s in d["sets"]]')" = "[('sweeps', 164)]" ]
# Tables as they arrive in mail (tests/fixtures/xferstat/table-*.txt):
# the set names alone on a line, "Count Time Rate Time Rate ...", single
# blanks, and a Dev. of the times only, one per set; the same respaced
# with tabs and runs of blanks.  The SDs are Python's.
for gap in ' ' '	' '    '; do
	sed "s/ /$gap/g" "$F/table-mail.txt" >"$T/mailtab.txt"
	"$XFERSTAT" import -f table --size 1M -o "$T/mailtab.json" "$T/mailtab.txt" 2>"$T/mailtab.out"
	check "mail table (gap '$gap'): three sets I II III of 5 runs" \
		[ "$(xs_json "$T/mailtab.json" '[(s["label"], len(s["runs"])) for s in d["sets"]]')" = "[('I', 5), ('II', 5), ('III', 5)]" ]
	want=$("$PY" -c 'import json, statistics, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%.10g" % statistics.stdev(r["seconds"] for r in s["runs"]) for s in d["sets"]))' "$T/mailtab.json")
	for sd in $want; do
		check "mail table (gap '$gap'): a Dev. per set found to be the sample SD of the times, $sd" \
			grep -q "Dev. Time of I* (one value for the set: that of this column) = 0\.[0-9]*: the sample SD (divisor n-1) of 5 runs, $sd" "$T/mailtab.out"
	done
done
"$XFERSTAT" import --strict --size 1M -o "$T/tabs.json" "$F/table-tabs.txt" 2>"$T/tabs.out"
check "tab table: --strict refuses the Dev. that matches none" [ $? -eq 2 ] && [ ! -e "$T/tabs.json" ]
check "tab table: says so at its cell" grep -q "table-tabs.txt:9:16: Dev. Time \[s\] of III (one value for the set; it matches none of its columns) = 1.7: NEITHER" "$T/tabs.out"
"$XFERSTAT" import --size 1M -o "$T/two.json" "$F/table-twoline.txt" 2>"$T/two.out"
check "two-line header: sets named with a blank, units from the second line" \
	[ "$(xs_json "$T/two.json" '[(s["label"], s["runs"][0]["seconds"]) for s in d["sets"]]')" = "[('old driver', 10.12), ('new driver', 12.05)]" ]
# Conditions under headings in one pasted mail (fixtures mail-*.txt).
"$XFERSTAT" import -o "$T/h.json" "$F/mail-nuttcp.txt" 2>"$T/h.out"
check "headings: two sets named by them" \
	[ "$(xs_json "$T/h.json" '[(s["label"], len(s["runs"])) for s in d["sets"]]')" = "[('Before the patch', 2), ('After the patch', 2)]" ]
check "headings: the summary says which sets and why" \
	grep -q 'mail-nuttcp.txt: set "After the patch": 2 runs, named by the heading on line 16$' "$T/h.out"
"$XFERSTAT" import --separator Test -o "$T/s.json" "$F/mail-ftp.txt" 2>"$T/s.out"
check "--separator: sets named by the rest of its lines" \
	[ "$(xs_json "$T/s.json" '[(s["label"], len(s["runs"])) for s in d["sets"]]')" = "[('I', 2), ('II', 2), ('III', 1)]" ]
"$XFERSTAT" import --label X --separator Test -o "$T/ls.json" "$F/mail-ftp.txt" 2>"$T/ls.out"
check "--label with --separator: a usage error" [ $? -eq 2 ] && grep -q "give one of them" "$T/ls.out"
"$XFERSTAT" import --label X -o "$T/l.json" "$F/mail-old-new.txt" 2>/dev/null
check "--label: one set, no headings" \
	[ "$(xs_json "$T/l.json" '[(s["label"], len(s["runs"])) for s in d["sets"]]')" = "[('X', 5)]" ]
exit $xs_fail
