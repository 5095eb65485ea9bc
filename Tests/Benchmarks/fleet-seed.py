#!/usr/bin/env python3
"""Fills a fleet store (already migrated by mdmconf) with N devices x 3 apps and one history row each, for the
fleet summary and report benchmarks. Writes SQLite directly, or CSV for PostgreSQL's COPY.

Usage: fleet-seed.py sqlite PATH N ETAG_FIELD ETAG_NOTES ETAG_SYNC
       fleet-seed.py csv TABLE N ETAG_FIELD ETAG_NOTES ETAG_SYNC > rows.csv    (TABLE: devices, device_apps, checkins)
The ETags are those of each app's default configuration (what a device outside the inventory is served).
Versions and ETags are drawn so that every decision and config status occurs: most devices current and up to
date, some on a blocked or too-old version, some stale. Each device has its own enrolment date, as devices that
report it do (a second random sequence, so the other columns are what they were before the dates were added).
"""
import csv
import json
import random
import sqlite3
import sys
import time

APPS = ["com.example.field", "com.example.fieldnotes", "com.example.fieldsync"]
FIELD_VERSIONS = ["3.2.1"] * 12 + ["3.2.0"] * 4 + ["3.1.0", "3.0.2", "2.3.1"]
SYNC_VERSIONS = ["1.0", "1.1"]


def rows(n, etags):
    rng = random.Random(13)
    enrolment = random.Random(17)
    now = int(time.time())
    for i in range(n):
        device = f"dev-{i:06d}"
        seen = now - rng.randrange(0, 10 * 86400)  # some silent (older than 7 days)
        osv = rng.choice(["17.4.1", "17.5", "16.7.8", "15.8"])
        enrolled = seen - enrolment.randrange(30 * 86400, 730 * 86400)
        dev = (device, "ios", osv, "iPhone15,2", "en", "Europe/Berlin", enrolled, seen - 1, seen, "bench")
        apps = []
        for app, etag in zip(APPS, etags):
            version = rng.choice(SYNC_VERSIONS if app.endswith("sync") else FIELD_VERSIONS)
            tag = etag if rng.random() < 0.9 else '"0000"'
            apps.append((device, app, version, None, None, tag, None, None, seen))
        body = json.dumps({"device": device, "platform": "ios", "osVersion": osv,
                           "apps": [{"app": a[1], "version": a[2]} for a in apps]}, separators=(",", ":"))
        yield dev, apps, (device, seen, "bench", body)


def main():
    mode, target, n, etags = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:7]
    if mode == "sqlite":
        db = sqlite3.connect(target)
        devices, apps, history = [], [], []
        for dev, app_rows, checkin in rows(n, etags):
            devices.append(dev)
            apps.extend(app_rows)
            history.append(checkin)
        db.executemany("INSERT INTO devices (device, platform, os_version, device_model, locale, time_zone, "
                       "enrolled_at, reported_at, last_checkin, replica) VALUES (?,?,?,?,?,?,?,?,?,?)", devices)
        db.executemany("INSERT INTO device_apps (device, app, version, build, channel, config_etag, config_error, "
                       "deferrals_used, last_checkin) VALUES (?,?,?,?,?,?,?,?,?)", apps)
        db.executemany("INSERT INTO checkins (device, received_at, replica, body) VALUES (?,?,?,?)", history)
        db.commit()
        return
    out = csv.writer(sys.stdout)
    for dev, app_rows, checkin in rows(n, etags):
        if target == "devices":
            out.writerow(dev)
        elif target == "device_apps":
            out.writerows(app_rows)
        else:
            out.writerow(checkin)


main()
