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


def validation_table(results):
    def medians(name):
        path = os.path.join(results, f"{name}.json")
        if not os.path.exists(path):
            return None
        return [row["median"] for row in json.load(open(path))["results"]]

    print()
    print("| validation | median ms | comparison |")
    print("|---|---:|---|")
    one = medians("validate-1k")
    if one:
        print(f"| validate 1 KB config with its schema | {one[0] * 1000:.1f} | lint of the same file {one[1] * 1000:.1f} ms |")
    big = medians("validate-10m")
    if big:
        print(f"| validate 10 MB plist against a schema | {big[0] * 1000:.1f} | {big[0] / big[1]:.2f}x reading it ({big[1] * 1000:.1f} ms) |")
    small = medians("validate-small")
    separate = medians("validate-separate")
    if small:
        print(f"| validate 10,000 configs, one run | {small[0] * 1000:.1f} | xmllint --noout parsing them: {small[1] * 1000:.1f} ms |")
    if small and separate:
        scaled = separate[0] * 10
        print(f"| validate 10,000 configs, one run each | {scaled * 1000:.0f} (1,000 runs x 10) | one run is {scaled / small[0]:.0f}x faster |")


if __name__ == "__main__":
    main()
    validation_table(sys.argv[2])
