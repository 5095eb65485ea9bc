#!/usr/bin/env python3
"""How many public declarations of the project's own modules have no doc comment, from the symbol graphs that
`swift package generate-documentation` extracts (.build/<triple>/extracted-symbols/<package>/<Module>/).

Counted: every public or open symbol a module declares (extensions of other modules' types included), except
what the compiler synthesises and members that only implement a protocol requirement documented elsewhere
(DocC shows the requirement's comment for them). Prints one line per module and a total; with --list, each
undocumented declaration."""
import glob, json, os, sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
# The modules with a DocC catalog: the library products and the mdmconf tool.
modules = sorted(os.path.basename(os.path.dirname(d)) for d in glob.glob(os.path.join(root, "Sources", "*", "*.docc")))
listing = "--list" in sys.argv
total = 0
seen = set()
for module in modules:
    files = glob.glob(os.path.join(root, ".build", "*", "extracted-symbols", "*", module, "*.symbols.json"))
    if not files:
        continue
    missing = []
    for path in files:
        graph = json.load(open(path))
        implements = {r["source"] for r in graph.get("relationships", []) if r["kind"] in ("requirementOf", "defaultImplementationOf")}
        implements |= {r["source"] for r in graph.get("relationships", []) if r["kind"] == "memberOf" and r.get("sourceOrigin")}
        for symbol in graph["symbols"]:
            precise = symbol["identifier"]["precise"]
            if precise in seen or "::SYNTHESIZED::" in precise:
                continue
            seen.add(precise)
            if symbol.get("accessLevel") not in ("public", "open") or precise in implements:
                continue
            location = symbol.get("location", {}).get("uri", "")
            if location and "/Sources/" not in location:
                continue
            if not symbol.get("docComment"):
                missing.append("/".join(symbol["pathComponents"]) + "  " + location.split("/Sources/")[-1])
    total += len(missing)
    print(f"{module}: {len(missing)} public declarations without a doc comment")
    if listing:
        for line in sorted(missing):
            print("    " + line)
print(f"Documentation: {total} public declarations without a doc comment")
