#!/usr/bin/env python3
"""Parse-only baseline: orjson.loads on every line of a file, nothing else.
Prints 'lines seconds peak_rss_mib'."""
import sys
import time

import orjson

path = sys.argv[1]
loads = orjson.loads
start = time.perf_counter()
count = 0
with open(path, "rb") as f:
    for line in f:
        loads(line)
        count += 1
elapsed = time.perf_counter() - start
peak_kib = 0
with open("/proc/self/status") as status:
    for entry in status:
        if entry.startswith("VmHWM:"):
            peak_kib = int(entry.split()[1])
print(count, elapsed, peak_kib / 1024)
