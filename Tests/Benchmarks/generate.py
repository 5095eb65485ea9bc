#!/usr/bin/env python3
"""Generates the benchmark inputs: realistic managed-app configuration plists of a chosen size.

Usage: generate.py OUTDIR
Writes OUTDIR/1k.plist, OUTDIR/100k.plist, OUTDIR/10m.plist and OUTDIR/small/0000.plist ... 9999.plist.
The documents are written by Python's plistlib, so every one is valid and every reader accepts it.
"""
import datetime
import os
import plistlib
import random
import sys


def account(rng, index):
    return {
        "AccountName": f"Account {index}",
        "Server": f"mail{index}.example.com",
        "Port": rng.choice([443, 993, 8443]),
        "UseSSL": rng.random() < 0.9,
        "Timeout": round(rng.uniform(1, 120), 3),
        "Created": datetime.datetime(2024, 1, 1) + datetime.timedelta(seconds=rng.randrange(10**8)),
        "Folders": [f"Folder {n}" for n in range(rng.randrange(1, 6))],
        "Signature": "Sent from my managed device — <b>&amp;</b> ✓",
        "Certificate": rng.randbytes(48),
    }


def config(rng, target_bytes):
    doc = {
        "ServerURL": "https://mdm.example.com/api/v2",
        "AllowSession": True,
        "MaxRetries": 5,
        "Accounts": [],
    }
    size = 0
    index = 0
    while True:
        doc["Accounts"].append(account(rng, index))
        index += 1
        if index % 50 == 0 or target_bytes < 20000:
            size = len(plistlib.dumps(doc))
            if size >= target_bytes:
                break
    return doc


def main():
    out = sys.argv[1]
    rng = random.Random(20261121)
    os.makedirs(os.path.join(out, "small"), exist_ok=True)
    for name, size in [("1k", 1000), ("100k", 100_000), ("10m", 10_000_000)]:
        with open(os.path.join(out, f"{name}.plist"), "wb") as f:
            plistlib.dump(config(rng, size), f)
    small = plistlib.dumps(config(rng, 1000))
    for n in range(10_000):
        with open(os.path.join(out, "small", f"{n:04d}.plist"), "wb") as f:
            f.write(small)


if __name__ == "__main__":
    main()
