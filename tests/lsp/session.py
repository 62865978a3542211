#!/usr/bin/env python3
"""A scripted editor session against `tkc lsp` (issue 22, item 7): the JSON-RPC messages an editor
sends, and exactly what the server must answer. Usage: session.py TKC"""
import json
import os
import subprocess
import sys
import tempfile

TKC = os.path.abspath(sys.argv[1])


class Server:
    def __init__(self, *args, cwd=None):
        self.proc = subprocess.Popen([TKC, "lsp", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=cwd)
        self.next_id = 0

    def write(self, raw):
        self.proc.stdin.write(raw)
        self.proc.stdin.flush()

    def send(self, method, params=None, request=True):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if request:
            self.next_id += 1
            message["id"] = self.next_id
        body = json.dumps(message).encode()
        self.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        return message.get("id")

    def recv(self):
        length = None
        while True:
            line = self.proc.stdout.readline()
            assert line, "the server closed its output"
            if line == b"\r\n":
                break
            name, value = line.decode().split(":", 1)
            if name.lower() == "content-length":
                length = int(value)
        return json.loads(self.proc.stdout.read(length))

    def request(self, method, params=None):
        sent = self.send(method, params)
        reply = self.recv()
        assert reply.get("id") == sent, reply
        return reply

    def notify(self, method, params):
        self.send(method, params, request=False)

    def diagnostics(self):
        """The publishDiagnostics notifications that follow an open or change, by URI."""
        found = {}
        while True:
            message = self.recv()
            assert message["method"] == "textDocument/publishDiagnostics", message
            found[message["params"]["uri"]] = message["params"]["diagnostics"]
            self.version = message["params"].get("version")
            if message["params"]["uri"] == self.main_uri:  # the opened file's come last
                return found

    def position(self, method, uri, line, character):
        return self.request(method, {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}})["result"]


def check(what, got, want):
    if got != want:
        sys.exit("FAIL %s:\n  got  %r\n  want %r" % (what, got, want))
    print("ok  %s" % what)


def uri(path):
    return "file://" + path.replace("%", "%25").replace(" ", "%20")


def main():
    work = tempfile.mkdtemp(prefix="tk lsp ")  # a space: URIs are percent-encoded
    helper = os.path.join(work, "helper.tk")
    with open(helper, "w") as f:
        f.write("const SCALE: f32 = 2.0;\n"
                "fn twice(x) { return x * SCALE; }\n"
                "fn broken(x) { return x + nothing; }\n")
    main_path = os.path.join(work, "main.tk")
    main_uri, helper_uri = uri(main_path), uri(helper)
    good = ('import "helper.tk";\n'
            'import "std/math.tk";\n'
            "kernel scale(x: ptr<f32>, y: ptr<f32>, n: i32, const BLOCK: i32 = 128) {\n"
            "    let offs = program_id(0) * BLOCK + arange(0, BLOCK);\n"
            "    /* é→𝄞 */ let v = load(x + offs, mask = offs < n, other = 0.0);\n"
            "    store(y + offs, silu(twice(v)), mask = offs < n);\n"
            "}\n")
    bad = good.replace("let v = load(x + offs", "let v = load(z + offs")

    def at(line, needle, nth=0):
        """(line, character) of the nth `needle` on `line` of `good`, in UTF-16 units."""
        text = good.split("\n")[line]
        index = -1
        for _ in range(nth + 1):
            index = text.index(needle, index + 1)
        return line, len(text[:index].encode("utf-16-le")) // 2

    def span(line, needle, nth=0):
        line, character = at(line, needle, nth)
        return {"start": {"line": line, "character": character}, "end": {"line": line, "character": character + len(needle)}}

    s = Server()
    s.main_uri = main_uri
    init = s.request("initialize", {"processId": None, "rootUri": uri(work), "capabilities": {}})
    caps = init["result"]["capabilities"]
    check("initialize: full sync, hover, definition",
          (caps["textDocumentSync"], caps["hoverProvider"], caps["definitionProvider"]),
          ({"openClose": True, "change": 1}, True, True))
    s.notify("initialized", {})

    s.notify("textDocument/didOpen", {"textDocument": {"uri": main_uri, "languageId": "tk", "version": 1, "text": bad}})
    diags = s.diagnostics()[main_uri]
    check("an unknown name is an error at its place",
          [(d["severity"], d["message"], d["range"]) for d in diags],
          [(1, "unknown name 'z'", span(4, "x"))])

    s.notify("textDocument/didChange", {"textDocument": {"uri": main_uri, "version": 2},
                                        "contentChanges": [{"text": good}]})
    check("the fix clears it, for the text's version", (s.diagnostics(), s.version), ({main_uri: []}, 2))

    # Line 4 is `    /* é→𝄞 */ let v = ...`: the checker counts code points, the protocol UTF-16
    # units (𝄞 is two), and UTF-8 takes 2 + 3 + 4 bytes for the three.
    hover = lambda pos: (s.position("textDocument/hover", main_uri, *pos) or {}).get("contents", {}).get("value")
    check("hover on a declaration after a UTF-16 pair", hover(at(4, "v")), "```tk\nv: f32[128]\n```")
    check("hover on a use", hover(at(5, "v)")), "```tk\nv: f32[128]\n```")
    check("hover on a constant shows its value", hover(at(3, "BLOCK")), "```tk\nBLOCK: i32 = 128\n```")
    check("hover on a builtin shows its parameters", hover(at(4, "load")),
          "```tk\nbuiltin load(ptrs, mask = ..., other = ..., cache = ..., evict = ..., prefetch_size = ...)\n```")
    check("hover on a function call shows its instance", hover(at(5, "silu")),
          "```tk\nfn silu(x: f32[128]) -> f32[128]\n```")
    check("hover on an operator gives the expression's type", hover(at(3, "+")), "```tk\ni32[128]\n```")
    check("hover on nothing", s.position("textDocument/hover", main_uri, 6, 0), None)

    definition = lambda pos: s.position("textDocument/definition", main_uri, *pos)
    check("definition of a local", definition(at(5, "v)")), {"uri": main_uri, "range": span(4, "v")})
    check("definition of a parameter", definition(at(4, "x"))["range"], span(2, "x"))
    check("definition of an imported function", definition(at(5, "twice")),
          {"uri": helper_uri, "range": {"start": {"line": 1, "character": 3}, "end": {"line": 1, "character": 8}}})
    silu = definition(at(5, "silu"))
    check("definition in the stdlib", (silu["uri"].endswith("/std/math.tk"), silu["range"]["start"]["line"]), (True, 7))

    # An error inside an import goes to that file; fixing the caller clears it there.
    s.notify("textDocument/didChange", {"textDocument": {"uri": main_uri, "version": 3},
                                        "contentChanges": [{"text": good.replace("twice(v)", "broken(v)")}]})
    found = s.diagnostics()
    check("an import's error is published to the import",
          ([d["message"] for d in found.get(helper_uri, [])], found[main_uri]), (["unknown name 'nothing'"], []))
    s.notify("textDocument/didChange", {"textDocument": {"uri": main_uri, "version": 4},
                                        "contentChanges": [{"text": good}]})
    check("and cleared there", s.diagnostics(), {helper_uri: [], main_uri: []})

    s.notify("textDocument/didChange", {"textDocument": {"uri": main_uri, "version": 5},
                                        "contentChanges": [{"text": good.replace(" = 128", "")}]})
    check("an unbound constant is a warning, as in tkc check",
          [(d["severity"], d["message"]) for d in s.diagnostics()[main_uri]],
          [(2, "kernel 'scale' was not type-checked: const BLOCK has no value (give -D BLOCK=VALUE or a default)")])

    # Garbage never takes the server down.
    body = b"{not json"
    s.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    reply = s.recv()
    check("invalid JSON is a parse error", (reply["id"], reply["error"]["code"]), (None, -32700))
    check("an unknown request", s.request("textDocument/rename", {})["error"]["code"], -32601)
    check("a position request without a position",
          s.request("textDocument/hover", {"textDocument": {"uri": main_uri}})["error"]["code"], -32602)
    check("a position past the end", s.position("textDocument/hover", main_uri, 4000000000, 5), None)
    s.notify("textDocument/didClose", {"textDocument": {"uri": main_uri}})
    check("closing clears its diagnostics", s.diagnostics(), {main_uri: []})
    check("a closed document answers nothing", s.position("textDocument/hover", main_uri, *at(5, "v)")), None)
    check("shutdown", s.request("shutdown")["result"], None)
    s.notify("exit", None)
    check("exit after shutdown is status 0", s.proc.wait(timeout=30), 0)

    # Regressions from a review: each of these failed before.
    r = Server("-D", "BLOCK=128")
    r.main_uri = uri(os.path.join(work, "r.tk"))
    check("a request before initialize", r.request("textDocument/hover", {"textDocument": {"uri": r.main_uri},
          "position": {"line": 0, "character": 0}})["error"]["code"], -32002)
    r.request("initialize", {"capabilities": {}})
    deep = b'{"jsonrpc":"2.0","method":"x","params":' + b"[" * 40000 + b"]" * 40000 + b"}"
    r.write(b"Content-Length: %d\r\n\r\n" % len(deep) + deep)
    check("JSON nested 40,000 deep is a parse error, not a crash", r.recv()["error"]["code"], -32700)
    unrolled = ("kernel k(p: ptr<i32>) {\r"  # lone CRs end lines too
                "    for i in static_range(0, 64) { let c = i * 2; store(p + i, c); }\r"
                "    let z = nothing;\r}\r")
    r.notify("textDocument/didOpen", {"textDocument": {"uri": r.main_uri, "languageId": "tk", "version": 1,
                                                       "text": "\ufeff" + unrolled}})
    diags = r.diagnostics()[r.main_uri]
    check("-D of a constant this file lacks leaves it checked; lone CR lines and a BOM keep positions",
          [(d["message"], d["range"]["start"]) for d in diags], [("unknown name 'nothing'", {"line": 2, "character": 12})])
    texts = r.position("textDocument/hover", r.main_uri, 1, 39)["contents"]["value"].splitlines()
    check("an unrolled variable's hover is capped", (len(texts), texts[-2]), (11, "... 56 more"))
    # An import opened, fixed and closed after its importer was checked again: the importer's
    # old finding in it must not come back (it did: open imports kept their importers' records).
    imp_path, importer_path = os.path.join(work, "imp.tk"), os.path.join(work, "importer.tk")
    broken_imp, fixed_imp = "fn bad(x) { return nothing; }\n", "fn bad(x) { return x; }\n"
    importer = 'import "imp.tk";\nkernel k(p: ptr<f32>) { store(p, bad(1.0)); }\n'
    for path, text in ((imp_path, broken_imp), (importer_path, importer)):
        with open(path, "w") as f:
            f.write(text)
    imp_uri, importer_uri, r_uri = uri(imp_path), uri(importer_path), r.main_uri
    r.main_uri = importer_uri
    r.notify("textDocument/didOpen", {"textDocument": {"uri": importer_uri, "languageId": "tk", "version": 1, "text": importer}})
    check("the importer's finding in its import", [d["message"] for d in r.diagnostics().get(imp_uri, [])],
          ["unknown name 'nothing'"])
    r.main_uri = imp_uri
    r.notify("textDocument/didOpen", {"textDocument": {"uri": imp_uri, "languageId": "tk", "version": 1, "text": broken_imp}})
    r.diagnostics()
    with open(imp_path, "w") as f:
        f.write(fixed_imp)
    r.notify("textDocument/didChange", {"textDocument": {"uri": imp_uri, "version": 2}, "contentChanges": [{"text": fixed_imp}]})
    r.diagnostics()
    r.main_uri = importer_uri
    r.notify("textDocument/didChange", {"textDocument": {"uri": importer_uri, "version": 2},
                                        "contentChanges": [{"text": importer}]})
    r.diagnostics()
    r.notify("textDocument/didClose", {"textDocument": {"uri": imp_uri}})
    closed = r.recv()["params"]
    check("a closed import shows what its importers find now", (closed["uri"], closed["diagnostics"]), (imp_uri, []))
    r.main_uri = r_uri
    check("a declaration is its own definition", r.position("textDocument/definition", r.main_uri, 1, 39)["range"]["start"],
          {"line": 1, "character": 39})
    check("after shutdown, requests are refused", (r.request("shutdown")["result"],
          r.request("textDocument/hover", {})["error"]["code"]), (None, -32600))

    # An untitled buffer lies in no folder: helper.tk beside the server's working folder is no import.
    w = Server(cwd=work)
    w.main_uri = "untitled:Untitled-1"
    w.request("initialize", {"capabilities": {}})
    w.notify("textDocument/didOpen", {"textDocument": {"uri": w.main_uri, "languageId": "tk", "version": 1,
                                                       "text": 'import "helper.tk";\n'}})
    check("an untitled buffer imports from the stdlib only",
          [d["message"].split(" (")[0] for d in w.diagnostics()[w.main_uri]], ['cannot find import "helper.tk"'])
    w.notify("exit", None)

    # Documents that unroll much: the checks kept for hover stay within the server's limit (each
    # kept all of its ~80 MB; 40 such documents took 3.2 GB), and a dropped one is checked again
    # when asked about.
    m = Server()
    m.request("initialize", {"capabilities": {}})
    unrolled = ("kernel k(p: ptr<f32>) {\n    let v = 1.0;\n"
                "    for i in static_range(0, 1024) { for j in static_range(0, 40) { store(p + i + j, v); } }\n}\n")
    for k in range(16):
        m.main_uri = "untitled:unrolled-%d" % k
        m.notify("textDocument/didOpen", {"textDocument": {"uri": m.main_uri, "languageId": "tk", "version": 1,
                                                           "text": unrolled}})
        m.diagnostics()
    rss = int(next(l.split()[1] for l in open("/proc/%d/status" % m.proc.pid) if l.startswith("VmRSS")))
    check("16 documents that unroll 40,960 stores each keep under 600 MB", rss < 600 << 10, True)
    hover = m.position("textDocument/hover", "untitled:unrolled-0", 1, 8)
    check("the first of them, its check dropped, still answers hover", "f32" in json.dumps(hover), True)
    m.notify("exit", None)

    t = Server()
    t.notify("exit", None)
    check("exit without shutdown is status 1", t.proc.wait(timeout=30), 1)

    u = Server()
    u.write(b"Content-Length: 99999999999\r\n\r\n")
    reply = u.recv()
    check("an oversized message is refused, then the server stops",
          (reply["error"]["code"], u.proc.wait(timeout=30)), (-32700, 1))
    print("tkc lsp: every check passed")


main()
