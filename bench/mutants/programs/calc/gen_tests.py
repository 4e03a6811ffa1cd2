#!/usr/bin/env python3
"""Regenerates the calc test suite from the correct program.

Builds calc.c with gcc in a temporary directory, draws a fixed (seeded) set of
expressions, runs the program on each and records its stdout and exit status:
tests/cases.txt (one expression as argv[1] per line) and tests/stdin-*.in/.out/
.exit (several lines on stdin). Running it again reproduces the same files.
"""
import glob
import os
import random
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "tests")
SEED = 20240611
TABLE_CASES = 420


def build(tmp):
    exe = os.path.join(tmp, "calc")
    subprocess.run(
        ["gcc", "-O0", "-Wall", "-Wextra", "-Werror", "-o", exe, os.path.join(HERE, "calc.c")],
        check=True,
    )
    return exe


def run(exe, args, stdin=""):
    r = subprocess.run([exe] + args, input=stdin.encode(), capture_output=True, timeout=10)
    return r.stdout.decode(), r.returncode


def escape(text):
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def number(rng):
    kind = rng.random()
    if kind < 0.5:
        return str(rng.randint(0, 9))
    if kind < 0.8:
        return str(rng.randint(10, 999))
    if kind < 0.95:
        return str(rng.randint(1000, 99999))
    return str(rng.randint(100000, 999999999))


def space(rng):
    r = rng.random()
    if r < 0.7:
        return ""
    if r < 0.95:
        return " "
    return "\t"


def expression(rng, depth):
    """A random well-formed expression (it may still divide by zero or overflow)."""
    if depth <= 0 or rng.random() < 0.3:
        atom = number(rng)
        if rng.random() < 0.15:
            atom = rng.choice(["-", "+", "--", "-"]) + atom
        return atom
    r = rng.random()
    if r < 0.2:
        return "(" + space(rng) + expression(rng, depth - 1) + space(rng) + ")"
    if r < 0.28:
        return "-" + "(" + expression(rng, depth - 1) + ")"
    op = rng.choice(["+", "-", "*", "/", "%", "+", "-", "*"])
    left = expression(rng, depth - 1)
    right = expression(rng, depth - 1)
    if op in "/%" and rng.random() < 0.15:
        right = rng.choice(["0", "(1-1)", "(2*3-6)", "0*5"])
    return left + space(rng) + op + space(rng) + right


def corrupt(rng, text):
    """A damaged copy of an expression: most of these are syntax errors."""
    r = rng.random()
    if not text:
        return "("
    pos = rng.randint(0, len(text))
    if r < 0.3:
        return text[:pos] + rng.choice(["(", ")", "*", "/", "+*", "x", "&", ".", "^", "a1"]) + text[pos:]
    if r < 0.5:
        return text[:max(0, pos - 1)] + text[pos:]
    if r < 0.7:
        return text + rng.choice([")", "(", "+", "*", " 7", "2)"])
    if r < 0.85:
        return rng.choice(["*", "/", ")", "%", "(("]) + text
    return text.replace("(", "", 1) if "(" in text else text + " )"


EDGE = [
    "0", "7", "-7", "+7", "--7", "- -7", "-+-7", "007", "42", " 42 ", "\t5",
    "1+2", "1-2", "2*3", "7/2", "-7/2", "7/-2", "-7/-2", "7%3", "-7%3", "7%-3",
    "1+2*3", "(1+2)*3", "2*3+4*5", "2*(3+4)*5", "100/10/2", "100-10-2", "2-3-4",
    "8/(3-1)", "(((5)))", "-(2+3)", "-(-(2))", "1 + 2 * 3 - 4 / 2 % 3",
    "10/0", "10%0", "0/0", "1/(2-2)", "5%(3-3)", "1+2/0", "(0)/0",
    "999999999", "1000000000", "2147483648", "99999999999999999999",
    "999999999+0", "999999999+1", "-999999999-1", "-999999999+1", "500000000+499999999",
    "500000000+500000000", "31622*31622", "31623*31623", "999999999*1", "999999999*-1",
    "-999999999*1", "333333333*3", "333333334*3", "0*999999999", "999999999*0",
    "1000*1000*1000", "1000*1000*999", "-1000*1000*1000", "999999999/-1",
    "", " ", "\t", "(", ")", "()", "(1", "1)", "1+", "+", "-", "*1", "1**2", "1//2",
    "1 2", "1+(2", "(1+2))", "((1)", "2(3)", "(2)3", "1+a", "x", "1.5", "3^2", "1,2",
    "4 %", "% 4", "12 34", "1+-2", "1*-2", "-(-(-(1)))", "1 - - 1", "1--1", "1+++1",
    "(" * 15 + "1" + ")" * 15, "(" * 16 + "1" + ")" * 16, "(" * 20 + "1" + ")" * 20,
    "-" * 15 + "1", "-" * 16 + "1", "-(" * 7 + "1" + ")" * 7, "-(" * 8 + "1" + ")" * 8,
    "(" * 15 + "1", "1" + ")" * 3, "((((((((1+2)*3)-4)/5)%6)+7)*8)",
]


def table_cases(rng):
    cases = list(EDGE)
    while len(cases) < TABLE_CASES:
        r = rng.random()
        text = expression(rng, rng.randint(1, 5))
        if r < 0.22:
            text = corrupt(rng, text)
        cases.append(text)
    return cases


def stdin_cases(rng):
    lines = [expression(rng, rng.randint(1, 4)) for _ in range(30)]
    return [
        ("stdin-01", "1+2\n2*3\n(4+5)*6\n"),
        ("stdin-02", "1+2\n\n   \n10/0\n3*\n7\n"),
        ("stdin-03", "\n".join(lines[:10]) + "\n"),
        ("stdin-04", "\n".join(lines[10:20])),
        ("stdin-05", "5\r\n6*7\r\n(8\r\n"),
        ("stdin-06", "1+" * 130 + "1\n2+2\n"),
        ("stdin-07", "1+" * 127 + "1\n" + "2+" * 127 + "22\n" + "3+" * 127 + "3"),
        ("stdin-08", ""),
        ("stdin-09", "\n".join(corrupt(rng, l) for l in lines[20:30]) + "\n"),
        ("stdin-10", "999999999+1\n" + "(" * 16 + "1" + ")" * 16 + "\n-5%3\n"),
    ]


def main():
    rng = random.Random(SEED)
    os.makedirs(TESTS, exist_ok=True)
    for old in glob.glob(os.path.join(TESTS, "stdin-*")):
        os.remove(old)
    with tempfile.TemporaryDirectory() as tmp:
        exe = build(tmp)
        out = [
            "# calc cases: EXPR => EXPECTED STDOUT => EXIT, written by gen_tests.py",
            "# from the correct program (seed %d); do not edit by hand." % SEED,
            "",
        ]
        counts = {0: 0, 1: 0}
        for text in table_cases(rng):
            arg = shlex.quote(text)
            assert "=>" not in arg and "\n" not in text
            stdout, code = run(exe, [text])
            counts[code] = counts.get(code, 0) + 1
            out.append("%s => %s => %d" % (arg, escape(stdout.rstrip("\n")), code))
        # Misuse: two arguments.
        stdout, code = run(exe, ["1", "2"])
        out.append("1 2 => %s => %d" % (escape(stdout.rstrip("\n")), code))
        with open(os.path.join(TESTS, "cases.txt"), "w") as f:
            f.write("\n".join(out) + "\n")
        stdin_tests = stdin_cases(rng)
        for name, stdin in stdin_tests:
            stdout, code = run(exe, [], stdin)
            base = os.path.join(TESTS, name)
            with open(base + ".in", "w", newline="") as f:
                f.write(stdin)
            with open(base + ".out", "w", newline="") as f:
                f.write(stdout)
            with open(base + ".exit", "w") as f:
                f.write("%d\n" % code)
    print("%d table cases (%d valid, %d errors), %d stdin tests"
          % (len(out) - 3, counts.get(0, 0), counts.get(1, 0), len(stdin_tests)),
          file=sys.stderr)


if __name__ == "__main__":
    main()
