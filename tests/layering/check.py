#!/usr/bin/env python3
"""The include graph must read as the pipeline (README, "Source tree"): a file may include
headers of its own layer and of the layers below it, never of a layer above it or of a sibling.

    support          the scalar types and f16/bf16/f8 conversions shared by compiler and runtime
    grammar, ir      the ANTLR grammar; the tk dialect and its tile passes
    frontend, codegen   side by side on ir/: source to tk IR; tk IR to PTX
    driver           the whole pipeline (tk::Compiler), the AOT header emitter
    runtime          libtkc-runtime (contexts, buffers, AOT loader) and the JIT, interpreter, caches
    graph            the graph layer: tk's public C++ API only (the installed headers)
    tools            tkc, tk-opt

Also: libtkc-runtime (no LLVM inside) includes only support/ and its own runtime headers; tkc's own
sources include no LLVM or MLIR header (tkc links only libtkc, whose copy is hidden); a header in
a layer's include/ is included from outside that layer's lib/ (else it belongs next to its .cpp
files); no layer's CMakeLists.txt compiles another layer's sources. Usage: check.py SOURCE_ROOT. Exit 1 with one line per violation."""
import os
import re
import sys

RANK = {'support': 0, 'grammar': 1, 'ir': 1, 'frontend': 2, 'codegen': 2, 'driver': 3, 'runtime': 4,
        'graph': 5, 'tools': 6}
# Where each public header prefix lives (tk/<Prefix>/...).
PREFIX = {'tk/Support/': 'support', 'tk/Dialect/': 'ir', 'tk/Frontend/': 'frontend', 'tk/Codegen/': 'codegen',
          'tk/Driver/': 'driver', 'tk/Runtime/': 'runtime', 'tk/tk.h': 'runtime', 'tk/tk_c.h': 'runtime', 'tk/Graph/': 'graph'}
GRAMMAR = {'TkLexer.h', 'TkParser.h', 'TkVisitor.h', 'TkBaseVisitor.h', 'TkListener.h', 'TkBaseListener.h'}
LIBTKRT = {'runtime/lib/Aot.cpp', 'runtime/lib/Context.cpp', 'runtime/lib/CudaDriver.cpp', 'runtime/lib/Nvtx.cpp'}
LIBTKRT_HEADERS = {'tk/Runtime/Aot.h', 'tk/Runtime/Context.h', 'tk/Runtime/CudaDriver.h', 'tk/Runtime/Error.h',
                   'tk/Runtime/Nvtx.h'}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def main(root):
    errors = []
    files = []
    for layer in RANK:
        for base, dirs, names in os.walk(os.path.join(root, layer)):
            dirs[:] = [d for d in dirs if d not in ('cmake',)]
            for name in names:
                if name.endswith(('.cpp', '.h')):
                    files.append(os.path.relpath(os.path.join(base, name), root))
    installed = set()
    with open(os.path.join(root, 'tools/cmake/TkInstall.cmake')) as f:
        for path in re.findall(r'\b\w+/include/(tk/\S+\.h)\b', f.read()):
            installed.add(path)

    def layer_of(path):
        return path.split('/', 1)[0]

    def header_layer(header):
        for prefix, layer in PREFIX.items():
            if header == prefix or (prefix.endswith('/') and header.startswith(prefix)):
                return layer
        return None

    # Every public header lives in the include/ of the layer its prefix names.
    public = {}  # tk/... -> its file
    for path in files:
        m = re.match(r'(\w+)/include/(tk/.+\.h)$', path)
        if m:
            if header_layer(m.group(2)) != m.group(1):
                errors.append(f'{path}: a {m.group(2)} header must live in '
                              f'{header_layer(m.group(2))}/include, not {m.group(1)}/include')
            public[m.group(2)] = path

    included_from = {}  # public header -> files including it
    for path in files:
        layer = layer_of(path)
        with open(os.path.join(root, path), errors='replace') as f:
            text = f.read()
        for header in INCLUDE.findall(text):
            where = f'{path}: #include "{header}"'
            if header.startswith(('mlir/', 'llvm/')):
                if path in LIBTKRT:
                    errors.append(f'{where}: libtkc-runtime has no LLVM inside')
                if path.startswith('tools/tkc/'):
                    errors.append(f'{where}: tkc links no LLVM of its own (libtkc hides its copy)')
                if layer == 'graph':
                    errors.append(f'{where}: the graph layer sees only the public C++ API')
                continue
            if header.startswith('tk/'):
                target = header_layer(header)
                if target is None:
                    errors.append(f'{where}: no layer owns this header prefix')
                    continue
                included_from.setdefault(header, set()).add(path)
            elif header in GRAMMAR:
                target = 'grammar'
            elif os.path.exists(os.path.join(root, os.path.dirname(path), header)):
                continue  # next to the file: the same library
            else:
                continue  # a system or third-party header
            if target != layer and RANK[target] >= RANK[layer]:
                kind = 'a sibling' if RANK[target] == RANK[layer] else 'a layer above it'
                errors.append(f'{where}: {layer}/ must not include {kind} ({target}/)')
            if path in LIBTKRT and header not in LIBTKRT_HEADERS and target != 'support':
                errors.append(f'{where}: libtkc-runtime includes only support/ and its own runtime headers')
            if path.split('/include/', 1)[-1] in installed and '/include/' in path and header not in installed:
                errors.append(f'{where}: an installed header includes one that is not installed')
            if layer == 'graph' and target != 'graph' and header not in installed:
                errors.append(f'{where}: the graph layer sees only the public C++ API (installed headers)')

    # include/ holds what other layers or users include: a header included only from its own
    # layer's lib/ (and from no installed or otherwise public header) belongs in lib/.
    outside = set()
    for top in ('tests', 'bench', 'examples'):  # the layers' users
        for base, _, names in os.walk(os.path.join(root, top)):
            for name in names:
                if name.endswith(('.cpp', '.h')):
                    user = os.path.relpath(os.path.join(base, name), root)
                    with open(os.path.join(root, user), errors='replace') as f:
                        for header in INCLUDE.findall(f.read()):
                            included_from.setdefault(header, set()).add(user)
    for header, path in public.items():
        layer = layer_of(path)
        if header in installed or any(not f.startswith(layer + '/lib/') and not f.startswith(layer + '/include/')
                                      for f in included_from.get(header, ())):
            outside.add(header)
    changed = True
    while changed:  # a header that a public header includes is public too
        changed = False
        for header, path in public.items():
            if header in outside:
                continue
            if any(f in {public[h] for h in outside} for f in included_from.get(header, ())):
                outside.add(header)
                changed = True
    for header, path in sorted(public.items()):
        if header not in outside:
            errors.append(f'{path}: only {layer_of(path)}/lib includes it: move it next to the .cpp files')

    # A library is built from its own layer's sources: no CMakeLists.txt compiles another
    # layer's files (libtkc-runtime once compiled frontend/lib/Types.cpp).
    for layer in RANK:
        cmake = os.path.join(root, layer, 'CMakeLists.txt')
        if os.path.exists(cmake):
            with open(cmake) as f:
                for other in re.findall(r'\$\{PROJECT_SOURCE_DIR\}/(\w+)/[\w/]*\.cpp', f.read()):
                    if other != layer:
                        errors.append(f'{layer}/CMakeLists.txt: compiles a source file of {other}/')

    for e in errors:
        print(e)
    if errors:
        print(f'layering: {len(errors)} violation(s)')
        return 1
    print(f'layering: {len(files)} files checked, no back-arrow')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '../..')))
