#!/usr/bin/env python3
"""Python's plistlib as a reference reader for mdmconf's differential tests.

canon PATH...              read each file with plistlib; print one JSON list of
                           {"path": p, "value": CANON} or {"path": p, "error": "..."}
cpython-vectors OUTDIR     write the XML and binary vectors of CPython's own test suite (test.test_plistlib:
                           TESTDATA, XML_PLIST_WITH_ENTITY, INVALID_BINARY_PLISTS) to OUTDIR, plus TESTDATA
                           without the integers beyond 64 bits; print the canon list as above with "name"s, or
                           {"skipped": reason} when the test suite is not installed
generate SEED COUNT OUTDIR write COUNT random documents as OUTDIR/N.xml and OUTDIR/N.bplist with
                           plistlib; print one JSON list of {"xml": p, "binary": p, "value": CANON}

CANON is a tagged form that JSON can carry exactly: ["int", "123"], ["real", "<IEEE-754 bits in hex>"
or "nan"], ["str", s], ["bool", b], ["date", milliseconds since 1970], ["data", base64],
["array", [...]], ["dict", [[key, CANON], ...]] in document order.
"""
import base64
import datetime
import json
import math
import plistlib
import random
import struct
import sys

EPOCH = datetime.datetime(1970, 1, 1)


def canon(value):
    if isinstance(value, bool):
        return ["bool", value]
    if isinstance(value, int):
        return ["int", str(value)]
    if isinstance(value, float):
        return ["real", "nan" if math.isnan(value) else struct.pack(">d", value).hex()]
    if isinstance(value, str):
        return ["str", value]
    if isinstance(value, bytes):
        return ["data", base64.b64encode(value).decode("ascii")]
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return ["date", round((value - EPOCH).total_seconds() * 1000)]
    if isinstance(value, list):
        return ["array", [canon(item) for item in value]]
    if isinstance(value, dict):
        return ["dict", [[key, canon(item)] for key, item in value.items()]]
    raise TypeError(f"unexpected {type(value)}")


FRAGMENTS = ["a", "Key", "&", "<", ">", '"', "'", "]]>", "&amp;", "\t", "\n", " ", "é", "e\u0301", "ß",
             "日本", "😀", "𝄞", "👩‍💻", "\ufeff", "\u200b", "<!--", "-->", "%", "\\", "$EMAIL", "{{mail}}"]
INTS = [0, 1, -1, 2**63 - 1, -2**63, 2**63 - 2, -2**63 + 1, 255, 256, 65536, -4294967296]
REALS = [0.0, -0.0, 1.0, -1.5, math.nan, math.inf, -math.inf, 1.7976931348623157e308, 5e-324,
         2.2250738585072014e-308, 0.1, 1e-300, 123456789.125, 1e16, 2.5e-8]


def text(rng):
    return "".join(rng.choice(FRAGMENTS) for _ in range(rng.randrange(0, 7)))


def value(rng, depth=0):
    kind = rng.randrange(0, 8 if depth < 4 else 6)
    if kind == 0:
        return text(rng)
    if kind == 1:
        return rng.choice(INTS) if rng.random() < 0.5 else rng.randrange(-2**63, 2**63)
    if kind == 2:
        if rng.random() < 0.5:
            return rng.choice(REALS)
        number = struct.unpack(">d", struct.pack(">Q", rng.getrandbits(64) & 0x7FEFFFFFFFFFFFFF))[0]
        return -number if rng.random() < 0.5 else number
    if kind == 3:
        return rng.random() < 0.5
    if kind == 4:
        return EPOCH + datetime.timedelta(seconds=rng.randrange(-2208988800, 4102444800))
    if kind == 5:
        return rng.randbytes(rng.randrange(0, 80))
    if kind == 6:
        return [value(rng, depth + 1) for _ in range(rng.randrange(0, 6))]
    return {text(rng): value(rng, depth + 1) for _ in range(rng.randrange(0, 6))}


def main():
    mode = sys.argv[1]
    results = []
    if mode == "canon":
        for path in sys.argv[2:]:
            try:
                with open(path, "rb") as handle:
                    results.append({"path": path, "value": canon(plistlib.load(handle))})
            except Exception as error:  # every failure is an answer: plistlib rejected the file
                results.append({"path": path, "error": f"{type(error).__name__}: {error}"})
    elif mode == "cpython-vectors":
        try:
            from test import test_plistlib as suite
        except Exception as error:  # a Python installed without its test suite
            json.dump({"skipped": f"CPython's test.test_plistlib cannot be imported: {error}"}, sys.stdout)
            return
        vectors = [("testdata.xml", suite.TESTDATA[plistlib.FMT_XML]),
                   ("testdata.bplist", suite.TESTDATA[plistlib.FMT_BINARY]),
                   ("entity.xml", suite.XML_PLIST_WITH_ENTITY)]
        for fmt, suffix in ((plistlib.FMT_XML, "xml"), (plistlib.FMT_BINARY, "bplist")):
            loaded = plistlib.loads(suite.TESTDATA[fmt])
            small = {key: item for key, item in loaded.items()
                     if not (isinstance(item, int) and not -2**63 <= item < 2**63)}
            vectors.append((f"testdata-int64.{suffix}", plistlib.dumps(small, fmt=fmt, sort_keys=False)))
        vectors += [(f"invalid-binary-{index:02}.bplist", data)
                    for index, (_, data) in enumerate(suite.INVALID_BINARY_PLISTS)]
        for name, data in vectors:
            path = f"{sys.argv[2]}/{name}"
            with open(path, "wb") as handle:
                handle.write(data)
            try:
                results.append({"path": path, "name": name, "value": canon(plistlib.loads(data))})
            except Exception as error:
                results.append({"path": path, "name": name, "error": f"{type(error).__name__}: {error}"})
    elif mode == "generate":
        rng = random.Random(int(sys.argv[2]))
        for index in range(int(sys.argv[3])):
            root = {text(rng): value(rng) for _ in range(rng.randrange(1, 6))}
            xml_path = f"{sys.argv[4]}/{index}.xml"
            binary_path = f"{sys.argv[4]}/{index}.bplist"
            with open(xml_path, "wb") as handle:
                plistlib.dump(root, handle, sort_keys=False)
            with open(binary_path, "wb") as handle:
                plistlib.dump(root, handle, fmt=plistlib.FMT_BINARY, sort_keys=False)
            results.append({"xml": xml_path, "binary": binary_path, "value": canon(root)})
    else:
        sys.exit(f"unknown mode {mode}")
    json.dump(results, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
