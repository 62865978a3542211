#!/usr/bin/env python3
"""The editor support in tools/editor must know the language (ctest editor.grammar).

Every word literal of grammar/Tk.g4 (the keywords), every builtin of Builtins.h and every scalar
type of support/lib/Types.cpp must be in both the TextMate grammar (tk.tmLanguage.json) and the
vim syntax file (vim/syntax/tk.vim), and the two files' lists must be the same. Also: the .json
files parse, every regex of the TextMate grammar compiles with Python's re (none is skipped), and
a small TextMate interpreter (match and begin/end rules, includes, captures) gives `kernel`,
`let`, `for`, `dot`, `load`, `f32`, kernel names and `@autotune` their scopes in
examples/matmul.tk and stdlib/std/fp8_matmul.tk. Usage: check_grammar.py SOURCE_ROOT. Exit 1
with one line per problem."""
import json
import re
import sys
from pathlib import Path

# Words the editors know beyond the sources above: the for loop's iterators (SemaStmt.cpp), and
# parseScalar's alias `bool` with the type names `ptr` and `dtype` (Sema.cpp).
EXTRA_BUILTINS = {"range", "static_range"}
EXTRA_TYPES = {"bool", "ptr", "dtype"}
# The vim syntax groups that hold the keywords (tkType and tkBuiltin hold the rest).
VIM_KEYWORD_GROUPS = {"tkInclude", "tkDefine", "tkStatement", "tkModifier", "tkConditional",
                      "tkRepeat", "tkKeyword", "tkBoolean", "tkConstant"}
VIM_OPTIONS = {"contained", "skipwhite", "skipnl", "skipempty", "transparent", "display", "fold",
               "conceal", "oneline", "keepend", "extend", "excludenl", "concealends"}
# Where the scopes of words in the sample files are checked (outside comments and strings).
EXPECTED = {"kernel": "storage.type.function.tk", "fn": "storage.type.function.tk",
            "let": "storage.type.tk", "for": "keyword.control.loop.tk",
            "dot": "support.function.builtin.tk", "load": "support.function.builtin.tk",
            "f32": "support.type.primitive.tk"}
SAMPLES = ["examples/matmul.tk", "stdlib/std/fp8_matmul.tk"]
KEYWORD_SCOPES = ("keyword.", "storage.", "constant.language.")


class TextMate:
    """Tokenizes lines as a TextMate editor does: at each position the rule whose match starts
    first wins (ties: the open rule's end, then the earlier rule)."""

    def __init__(self, grammar):
        self.grammar = grammar
        self.regexes = {}

    def rules(self, patterns):
        out = []
        for p in patterns:
            ref = p.get("include")
            if ref is None:
                out.append(p)
            elif ref == "$self":
                out += self.rules(self.grammar["patterns"])
            else:
                r = self.grammar["repository"][ref.lstrip("#")]
                out += [r] if "match" in r or "begin" in r else self.rules(r["patterns"])
        return out

    def regex(self, text):
        if text not in self.regexes:
            self.regexes[text] = re.compile(text)
        return self.regexes[text]

    def captures(self, m, caps, scopes):
        caps = caps or {}
        if "0" in caps and "name" in caps["0"]:
            scopes = scopes + [caps["0"]["name"]]
        tokens, pos = [], m.start()
        groups = sorted((m.start(int(k)), m.end(int(k)), c) for k, c in caps.items()
                        if int(k) > 0 and m.start(int(k)) >= 0)
        for start, end, cap in groups:
            if start < pos:  # nested captures: this interpreter keeps the outer one
                continue
            tokens.append((pos, start, scopes))
            inner = scopes + [cap["name"]] if "name" in cap else scopes
            if "patterns" in cap:
                sub = self.line(m.string[start:end], [({"patterns": cap["patterns"]}, inner)])
                tokens += [(start + a, start + b, s) for a, b, s in sub]
            else:
                tokens.append((start, end, inner))
            pos = end
        tokens.append((pos, m.end(), scopes))
        return tokens

    def line(self, text, stack):
        """The tokens (start, end, scopes) of one line; `stack` holds the open begin/end rules."""
        tokens, pos, steps = [], 0, 0
        while pos <= len(text) and steps < 10000:
            steps += 1
            rule, scopes = stack[-1]
            best = None
            if "end" in rule:
                m = self.regex(rule["end"]).search(text, pos)
                best = m and (m.start(), None, m)
            for p in self.rules(rule.get("patterns", [])):
                m = self.regex(p.get("match", p.get("begin"))).search(text, pos)
                if m and (best is None or m.start() < best[0]):
                    best = (m.start(), p, m)
            if best is None:
                tokens.append((pos, len(text), scopes))
                break
            start, p, m = best
            tokens.append((pos, start, scopes))
            if p is None:
                tokens += self.captures(m, rule.get("endCaptures", rule.get("captures")), scopes)
                stack.pop()
            else:
                inner = scopes + [p["name"]] if "name" in p else scopes
                if "match" in p:
                    tokens += self.captures(m, p.get("captures"), inner)
                else:
                    tokens += self.captures(m, p.get("beginCaptures", p.get("captures")), inner)
                    stack.append((p, inner + [p["contentName"]] if "contentName" in p else inner))
            if m.end() > pos:
                pos = m.end()
            elif p is not None and "match" in p:  # an empty match changes nothing: move on
                tokens.append((pos, pos + 1, scopes))
                pos += 1
        return [t for t in tokens if t[1] > t[0]]


def scope_of(tm, text):
    """The innermost scope of a one-line text if the grammar reads it as one token, else None."""
    tokens = tm.line(text, [(tm.grammar, ["source.tk"])])
    return tokens[0][2][-1] if tokens and tokens[0][:2] == (0, len(text)) else None


def main(root):
    root = Path(root)
    editor = root / "tools/editor"
    problems = []
    g4 = re.sub(r"//[^\n]*", "", (root / "grammar/Tk.g4").read_text())
    keywords = set(re.findall(r"'([A-Za-z_]\w*)'", g4))
    builtins_h = re.sub(r"//[^\n]*", "", (root / "frontend/include/tk/Frontend/Builtins.h").read_text())
    builtins = set(re.findall(r'X\(\w+,\s*"(\w+)"', builtins_h))
    types_cpp = (root / "support/lib/Types.cpp").read_text()
    types = set(re.findall(r'"(\w+)"', re.search(r"kScalarNames\[\] = \{(.*?)\}", types_cpp, re.S)[1]))
    if not keywords or not builtins or not types:
        return ["found no keywords, builtins or scalar types in the sources"]

    grammars = {}
    for path in sorted(editor.rglob("*.json")):
        try:
            grammars[path.name] = json.loads(path.read_text())
        except ValueError as e:
            problems.append(f"{path.relative_to(root)} does not parse: {e}")
    tm_json = grammars.get("tk.tmLanguage.json")
    if tm_json is None:
        return problems + ["tools/editor/tk.tmLanguage.json is missing or does not parse"]
    if tm_json.get("scopeName") != "source.tk" or tm_json.get("fileTypes") != ["tk"]:
        problems.append("tk.tmLanguage.json: scopeName must be source.tk and fileTypes [\"tk\"]")

    regexes = []
    def walk(node):
        if isinstance(node, dict):
            regexes.extend(v for k, v in node.items() if k in ("match", "begin", "end", "while"))
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(tm_json)
    for rx in regexes:
        try:
            re.compile(rx)
        except re.error as e:
            problems.append(f"tk.tmLanguage.json: regex {rx!r} does not compile: {e}")
    if problems:
        return problems
    tm = TextMate(tm_json)

    # The word lists of each file, by kind.
    def tm_words(*entries):
        words = set()
        for name in entries:
            for rule in tm.rules([{"include": "#" + name}]):
                for alt in re.findall(r"\\b\(\?:([\w|]+)\)\\b", rule.get("match", "")):
                    words |= set(alt.split("|"))
        return words
    vim_text = (editor / "vim/syntax/tk.vim").read_text()
    vim = {}
    for group, rest in re.findall(r"^syn(?:tax)? keyword (\w+)(.*)", vim_text, re.M):
        vim.setdefault(group, set()).update(w for w in rest.split() if "=" not in w and w not in VIM_OPTIONS)
    lists = {
        "keywords": (keywords, tm_words("keywords", "constants"),
                     set().union(*(vim.get(g, set()) for g in VIM_KEYWORD_GROUPS))),
        "types": (types | EXTRA_TYPES, tm_words("types"), vim.get("tkType", set())),
        "builtins": (builtins | EXTRA_BUILTINS, tm_words("builtins"), vim.get("tkBuiltin", set())),
    }
    for kind, (want, tm_set, vim_set) in lists.items():
        for file, have in (("tk.tmLanguage.json", tm_set), ("vim/syntax/tk.vim", vim_set)):
            if want - have:
                problems.append(f"{file}: {kind} missing: {' '.join(sorted(want - have))}")
            if have - want:
                problems.append(f"{file}: {kind} not in the language: {' '.join(sorted(have - want))}")

    # The grammar, not only its lists, must scope each word.
    for word in sorted(keywords):
        if not (scope_of(tm, word) or "").startswith(KEYWORD_SCOPES):
            problems.append(f"tk.tmLanguage.json: keyword {word!r} is scoped {scope_of(tm, word)}")
    for word in sorted(types | EXTRA_TYPES):
        if scope_of(tm, word) != "support.type.primitive.tk":
            problems.append(f"tk.tmLanguage.json: type {word!r} is scoped {scope_of(tm, word)}")
    for word in sorted(builtins | EXTRA_BUILTINS):
        tokens = tm.line(word + "(x)", [(tm_json, ["source.tk"])])
        if tokens[0][:2] != (0, len(word)) or tokens[0][2][-1] != "support.function.builtin.tk":
            problems.append(f"tk.tmLanguage.json: builtin {word!r} is not support.function.builtin.tk")

    # The sample files, line by line: the words of EXPECTED, kernel and fn names, decorators.
    seen = dict.fromkeys(list(EXPECTED) + ["kernel name", "@autotune"], 0)
    checks = [(rf"\b{w}\b", 0, w, s) for w, s in EXPECTED.items()]
    checks += [(r"\b(?:kernel|fn)\s+(\w+)", 1, "kernel name", "entity.name.function.tk"),
               (r"@(autotune)\b", 1, "@autotune", "entity.name.function.decorator.tk")]
    for sample in SAMPLES:
        stack = [(tm_json, ["source.tk"])]
        for lineno, text in enumerate((root / sample).read_text().splitlines(), 1):
            tokens = tm.line(text, stack)
            for pattern, group, label, want in checks:
                for m in re.finditer(pattern, text):
                    token = next(t for t in tokens if t[0] <= m.start(group) < t[1])
                    if any(s.startswith(("comment.", "string.")) for s in token[2]):
                        continue
                    seen[label] += 1
                    if token[:2] != m.span(group) or token[2][-1] != want:
                        got = " ".join(token[2][1:]) or "no scope"
                        problems.append(f"{sample}:{lineno}: {m[group]!r} is {got}, not {want}")
    problems += [f"{' and '.join(SAMPLES)}: no {label!r} outside comments" for label, n in seen.items() if not n]

    if not problems:
        print(f"editor grammar: {len(keywords)} keywords, {len(builtins)} builtins (+{len(EXTRA_BUILTINS)}), "
              f"{len(types)} scalar types (+{len(EXTRA_TYPES)}) in tk.tmLanguage.json and vim/syntax/tk.vim; "
              f"{len(regexes)} regexes compile; {len(grammars)} .json files parse")
        print("scopes in " + ", ".join(SAMPLES) + ": " + ", ".join(f"{k} x{n}" for k, n in seen.items()))
    return problems


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: check_grammar.py SOURCE_ROOT")
    problems = main(sys.argv[1])
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)
