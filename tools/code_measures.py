#!/usr/bin/env python3
"""The code-shape measures of issue 21, counted over the files git tracks (run from anywhere in the checkout):

  flat OpKind switches with default:  `switch` statements whose top-level case labels are `OpKind::...` and that
                                      have a top-level `default:` (goal 0; family switches, over OpFamily or a
                                      family's enum, are not flat);
  functions over 150 lines            C++ function bodies (namespace or class level; lambdas count as part of the
                                      function around them) from the first line of the signature to the closing
                                      brace (goal 0);
  files over 500 lines                source files: .cpp .h .def .py .sh, generators and tests included (goal <= 5).

The C++ is read with a small lexer (comments, string and character literals blanked first), not a compiler, so
the numbers are a heuristic that errs towards counting: `--list` prints every place behind each count.
The duplicates count is the `duplicates` tool's (`duplicates --most 200 --seconds 120`), not this script's.

  python3 tools/code_measures.py [--list]
"""
import argparse
import re
import subprocess
import sys

SOURCE_SUFFIXES = (".cpp", ".h", ".def", ".py", ".sh")
CPP_SUFFIXES = (".cpp", ".h")
FUNCTION_LIMIT = 150
FILE_LIMIT = 500
NOT_FUNCTIONS = {"if", "for", "while", "switch", "catch", "do", "else", "return", "sizeof", "alignof", "decltype",
                 "static_assert", "requires"}


def tracked_files():
    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                          check=True).stdout.strip()
    names = subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True, cwd=root).stdout.split()
    return root, [name for name in names if name.endswith(SOURCE_SUFFIXES)]


def blank_comments_and_literals(text):
    """The text with comments and string/char literals replaced by spaces (newlines kept, so lines still count)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator: 1'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def matching_brace(code, open_at):
    depth = 0
    for i in range(open_at, len(code)):
        if code[i] == "{":
            depth += 1
        elif code[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return len(code) - 1


def line_of(code, index):
    return code.count("\n", 0, index) + 1


def flat_switches(code):
    """(line, has_default) of every switch whose top-level case labels name OpKind."""
    found = []
    for m in re.finditer(r"\bswitch\s*\(", code):
        brace = code.find("{", m.end())
        if brace < 0:
            continue
        end = matching_brace(code, brace)
        body, depth, top = code[brace + 1:end], 0, []
        for token in re.finditer(r"[{}]|\bcase\s+[\w:]+|\bdefault\s*:", body):
            text = token.group(0)
            if text == "{":
                depth += 1
            elif text == "}":
                depth -= 1
            elif depth == 0:
                top.append(text)
        cases = [t for t in top if t.startswith("case")]
        if cases and all(re.match(r"case\s+(tilesim::)?OpKind::", t) for t in cases):
            found.append((line_of(code, m.start()), any(t.startswith("default") for t in top)))
    return found


def long_functions(code):
    """(line, lines, name) of every namespace- or class-level function body longer than FUNCTION_LIMIT lines."""
    found = []

    def scan(start, end, in_function):
        i = start
        statement_start = start
        while i < end:
            c = code[i]
            if c in ";":
                statement_start = i + 1
            elif c == "}":
                statement_start = i + 1
            elif c == "{":
                close = matching_brace(code, i)
                header = code[statement_start:i]
                is_function = False
                if not in_function:
                    flat = " ".join(header.split())
                    name = re.search(r"([~\w:]+)\s*\([^()]*(\([^()]*\)[^()]*)*\)[^()]*$", flat)
                    words = re.findall(r"[A-Za-z_]\w*", flat)
                    if (name and words and words[0] not in ("namespace", "class", "struct", "enum", "union")
                            and name.group(1).split("::")[-1] not in NOT_FUNCTIONS and not flat.endswith("=")
                            and "=" not in flat.split("(")[0]):
                        is_function = True
                        first = line_of(code, statement_start + len(header) - len(header.lstrip()))
                        lines = line_of(code, close) - first + 1
                        if lines > FUNCTION_LIMIT:
                            found.append((first, lines, name.group(1)))
                scan(i + 1, close, in_function or is_function)
                i = close
                statement_start = close + 1
            i += 1

    scan(0, len(code), False)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="print every place behind each count")
    args = parser.parse_args()
    root, files = tracked_files()
    switches, functions, big_files = [], [], []
    for name in files:
        try:
            with open(f"{root}/{name}", encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError as error:
            print(f"code_measures: cannot read {name}: {error}", file=sys.stderr)
            return 2
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if lines > FILE_LIMIT:
            big_files.append((lines, name))
        if name.endswith(CPP_SUFFIXES):
            code = blank_comments_and_literals(text)
            switches += [(name, line, default) for line, default in flat_switches(code)]
            functions += [(name, line, count, fn) for line, count, fn in long_functions(code)]
    with_default = [s for s in switches if s[2]]
    print(f"flat OpKind switches: {len(switches)}, with default: {len(with_default)}")
    print(f"functions over {FUNCTION_LIMIT} lines: {len(functions)}")
    print(f"files over {FILE_LIMIT} lines: {len(big_files)}")
    if args.list:
        for name, line, default in switches:
            print(f"  switch {name}:{line}{' default' if default else ''}")
        for name, line, count, fn in sorted(functions, key=lambda f: -f[2]):
            print(f"  function {name}:{line} {fn} {count} lines")
        for count, name in sorted(big_files, reverse=True):
            print(f"  file {name} {count} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
