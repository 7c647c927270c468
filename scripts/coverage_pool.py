#!/usr/bin/env python3
"""Pools the `--sums` lines of coverage bench runs split over several runs that share one truth
(`cargo bench --bench coverage -- ... --sums > part1.txt`, then
`python3 scripts/coverage_pool.py part1.txt part2.txt ...`): prints the figures one bench run of
all the runs would print (docs/results.md, the coverage tables)."""
import sys, re, math
tab = {}
rep = {}
for f in sys.argv[1:]:
    for line in open(f):
        m = re.match(r'\s+(\d+) deals, sums: (.*)', line)
        if m:
            d = int(m.group(1)); parts = m.group(2).split()
            R, cov, N, s1, s2 = int(parts[0]), int(parts[1]), int(parts[2]), float(parts[3]), float(parts[4])
            ents = [tuple(float(x) for x in p.split('/')) for p in parts[5:]]
            t = tab.setdefault(d, [0, 0, 0, 0.0, 0.0, [[0, 0, 0, 0] for _ in ents]])
            t[0] += R; t[1] += cov; t[2] += N; t[3] += s1; t[4] += s2
            for acc, e in zip(t[5], ents):
                for i in range(4): acc[i] += e[i]
            continue
        m = re.match(r'\s+(\d+) deals: (\d+) runs.*mean half-width ([\d.]+) Elo.*few_deals (\d+), others wider than 3x the model\'s (\d+) \(widest ([\d.]+)x\); mean dispersion ([\d.]+), mean freedom ([\d.]+) \(of (\d+) fits\)', line)
        if m:
            d = int(m.group(1)); R = int(m.group(2))
            r = rep.setdefault(d, [0, 0.0, 0, 0, 0.0, 0.0, 0.0, 0])
            r[0] += R; r[1] += R * float(m.group(3)); r[2] += int(m.group(4)); r[3] += int(m.group(5))
            r[4] = max(r[4], float(m.group(6))); k = int(m.group(9))
            r[5] += k * float(m.group(7)); r[6] += k * float(m.group(8)); r[7] += k
for d in sorted(tab):
    R, cov, N, s1, s2, ents = tab[d]
    p = cov / N
    mean = s1 / R
    var = (s2 - R * mean * mean) / (R - 1)
    S2 = sum(e[1] for e in ents); Sse = sum(e[2] for e in ents)
    rms = math.sqrt(S2 / N)
    ratios, covs, bias = [], [], []
    for e in ents:
        m = e[0] / R; sd = math.sqrt((e[1] - R * m * m) / (R - 1))
        ratios.append(sd / (e[2] / R)); covs.append(100 * e[3] / R); bias.append(m)
    r = rep[d]
    print(f"{d} deals: runs {R} intervals {N} coverage {100*p:.2f}% binom se {100*math.sqrt(p*(1-p)/N):.2f}% runs se {100*math.sqrt(var/R):.2f}% "
          f"half {r[1]/r[0]:.1f} rmsx1.96 {1.96*rms:.1f} rms/se {rms/(Sse/N):.2f} SD/se min {min(ratios):.2f} [{' '.join(f'{x:.2f}' for x in ratios)}] "
          f"cov by entrant {min(covs):.1f}-{max(covs):.1f} [{' '.join(f'{x:.1f}' for x in covs)}] bias [{' '.join(f'{x:+.1f}' for x in bias)}] "
          f"few {r[2]} over3 {r[3]} widest {r[4]:.2f} disp {r[5]/max(r[7],1):.2f} nu {r[6]/max(r[7],1):.1f} fits {r[7]}")
