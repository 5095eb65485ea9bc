#!/usr/bin/env python3
"""Prints the benchmark table from hyperfine's JSON exports: median time, MB/s, and time relative to mdmconf."""
import json
import os
import sys


def tool_name(command):
    if "mdmconf" in command.split()[0]:
        return "mdmconf lint"
    if command.startswith("xmllint"):
        return "xmllint --noout"
    if "plutil" in command.split()[0]:
        return "plutil -lint"
    return "python plistlib.load"


def main():
    data, results = sys.argv[1], sys.argv[2]
    sizes = {name: os.path.getsize(os.path.join(data, f"{name}.plist")) for name in ("1k", "100k", "10m")}
    small = os.path.join(data, "small")
    sizes["small"] = sum(os.path.getsize(os.path.join(small, f)) for f in os.listdir(small))
    labels = {"1k": "1 KB plist", "100k": "100 KB plist", "10m": "10 MB plist", "small": "10,000 files (1 process)"}
    print(f"| input | tool | median ms | MB/s | time vs mdmconf |")
    print(f"|---|---|---:|---:|---:|")
    for name in ("1k", "100k", "10m", "small"):
        path = os.path.join(results, f"{name}.json")
        if not os.path.exists(path):
            continue
        rows = json.load(open(path))["results"]
        base = next(r["median"] for r in rows if tool_name(r["command"]) == "mdmconf lint")
        for row in rows:
            median = row["median"]
            mbps = sizes[name] / median / 1e6
            print(f"| {labels[name]} | {tool_name(row['command'])} | {median * 1000:.1f} | {mbps:.1f} | {median / base:.2f}x |")


if __name__ == "__main__":
    main()
