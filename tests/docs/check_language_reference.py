#!/usr/bin/env python3
"""The language reference (frontend/README.md) against the builtin table the checker uses
(frontend/include/tk/Frontend/Builtins.h): every builtin appears with its exact parameters, as
`name(a, b = ..., values...)` (`?` marks an optional parameter there, `*` a variadic one), and
the reference names no builtin the table lacks. Usage: check_language_reference.py SOURCE_ROOT"""
import os
import re
import sys


def signatures(header):
    rows = re.findall(r'X\((\w+), "(\w+)", "([^"]*)", \w+\)', header)
    out = {}
    for ident, name, params in rows:
        if ident == "Id":  # the macro's own description
            continue
        shown = []
        for p in filter(None, params.split(",")):
            if p.endswith("?"):
                shown.append(p[:-1] + " = ...")
            elif p.endswith("*"):
                shown.append(p[:-1] + "...")
            else:
                shown.append(p)
        out[name] = "%s(%s)" % (name, ", ".join(shown))
    return out


def main():
    root = sys.argv[1]
    with open(os.path.join(root, "frontend/include/tk/Frontend/Builtins.h")) as f:
        table = signatures(f.read())
    with open(os.path.join(root, "frontend/README.md")) as f:
        reference = f.read()
    errors = []
    if len(table) < 50:
        errors.append("read only %d builtins from Builtins.h: its row format changed" % len(table))
    for name, signature in sorted(table.items()):
        if "`%s`" % signature not in reference:
            errors.append("frontend/README.md lacks `%s`" % signature)
    # Every builtin row of the reference's tables is one of the table's.
    section = reference[reference.index("## Builtins"):reference.index("## What the compiler checks")]
    for name in re.findall(r"`(\w+)\(", section):
        if name not in table:
            errors.append("frontend/README.md documents `%s(...)`, which is no builtin" % name)
    for e in errors:
        print(e)
    print("language reference: %d builtins checked, %d problems" % (len(table), len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
