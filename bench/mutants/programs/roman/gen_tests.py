#!/usr/bin/env python3
"""Regenerates tests/cases.txt for roman from the correct program.

Builds roman.c with gcc in a temporary directory, draws a fixed (seeded) set
of argument lists (numbers, canonical numerals, damaged numerals, junk, several
arguments at once), runs the program on each and records its stdout and exit
status. Running it again reproduces the same file.
"""
import os
import random
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "tests")
SEED = 1994
TABLE_CASES = 400

PAIRS = [
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
    (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
]
SYMBOLS = "IVXLCDM"


def numeral(n):
    """Only used to draw inputs; expected outputs come from the C program."""
    out = ""
    for value, text in PAIRS:
        while n >= value:
            out += text
            n -= value
    return out


def build(tmp):
    exe = os.path.join(tmp, "roman")
    subprocess.run(
        ["gcc", "-O0", "-Wall", "-Wextra", "-Werror", "-o", exe, os.path.join(HERE, "roman.c")],
        check=True,
    )
    return exe


def run(exe, args):
    r = subprocess.run([exe] + args, capture_output=True, timeout=10)
    return r.stdout.decode(), r.returncode


def escape(text):
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def damaged(rng, text):
    """A numeral with one symbol inserted, removed, doubled or swapped; often
    no longer canonical (sometimes still valid, which the program decides)."""
    pos = rng.randint(0, len(text) - 1)
    r = rng.random()
    if r < 0.3:
        return text[:pos] + rng.choice(SYMBOLS) + text[pos:]
    if r < 0.5 and len(text) > 1:
        return text[:pos] + text[pos + 1:]
    if r < 0.7:
        return text[:pos] + text[pos] + text[pos:]
    if pos + 1 < len(text):
        return text[:pos] + text[pos + 1] + text[pos] + text[pos + 2:]
    return text + rng.choice(SYMBOLS)


EDGE_NUMBERS = [
    "1", "2", "3", "4", "5", "6", "8", "9", "10", "11", "14", "19", "20", "39", "40",
    "44", "49", "50", "89", "90", "94", "99", "100", "399", "400", "444", "499", "500",
    "888", "899", "900", "949", "999", "1000", "1444", "1994", "2000", "2024", "2421",
    "3000", "3333", "3888", "3999", "4000", "4001", "5000", "9999", "10000", "0", "00",
    "000", "01", "007", "0042", "03999", "04000", "123456789012345678901234567890",
]

EDGE_NUMERALS = [
    "I", "II", "III", "IV", "V", "VI", "VIII", "IX", "X", "XIV", "XIX", "XL", "XLIV",
    "XLIX", "L", "XC", "XCIX", "C", "CD", "CDXLIV", "D", "CM", "CMXCIX", "M", "MCMXCIV",
    "MMXXIV", "MMM", "MMMCMXCIX", "MMMDCCCLXXXVIII", "DCCCXC", "LXXX", "CCC", "MDCLXVI",
]

EDGE_INVALID = [
    "IIII", "VV", "VVV", "XXXX", "LL", "CCCC", "DD", "MMMM", "MMMMM", "IL", "IC", "ID",
    "IM", "XD", "XM", "VX", "VL", "VC", "LC", "LD", "DM", "IIV", "IIX", "XXL", "XXC",
    "CCD", "CCM", "IXI", "IVI", "IXV", "IXX", "XCX", "XCL", "XLX", "CMC", "CMD", "CDC",
    "CMM", "MCMC", "VIV", "VIIII", "LXL", "DCD", "IXIX", "XLXL", "MIM", "MDM", "CXCX",
    "iv", "mcmxciv", "Mcm", "X I", " X", "X ", "XIV.", "A", "Z", "-5", "+5", "-0",
    "12X", "X12", "1e3", "0x10", "3.5", "IV-", "", " ", "N", "MMMCMXCIXI",
]


def single(rng):
    r = rng.random()
    if r < 0.3:
        return str(rng.randint(1, 3999))
    if r < 0.55:
        return numeral(rng.randint(1, 3999))
    if r < 0.8:
        return damaged(rng, numeral(rng.randint(1, 3999)))
    if r < 0.87:
        return str(rng.randint(4000, 99999))
    if r < 0.92:
        return "0" * rng.randint(1, 3) + str(rng.randint(0, 3999))
    if r < 0.96:
        return "".join(rng.choice(SYMBOLS) for _ in range(rng.randint(1, 6)))
    return rng.choice(["x", "mix", "IIx", "5V", "V5", "?", "_", "ii", "Xv"])


def table_cases(rng):
    cases = [[a] for a in EDGE_NUMBERS + EDGE_NUMERALS + EDGE_INVALID]
    cases.append(["1994", "MCMXCIV"])
    cases.append(["IIII", "4", "IV"])
    cases.append(["", "1"])
    cases.append(["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"])
    while len(cases) < TABLE_CASES:
        count = 1 if rng.random() < 0.7 else rng.randint(2, 5)
        cases.append([single(rng) for _ in range(count)])
    return cases


def main():
    rng = random.Random(SEED)
    os.makedirs(TESTS, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        exe = build(tmp)
        out = [
            "# roman cases: ARGS => EXPECTED STDOUT => EXIT, written by gen_tests.py",
            "# from the correct program (seed %d); do not edit by hand." % SEED,
            "",
        ]
        counts = {}
        cases = table_cases(rng)
        cases.append([])
        for args in cases:
            line = " ".join(shlex.quote(a) for a in args)
            assert "=>" not in line and "\\" not in line
            stdout, code = run(exe, args)
            counts[code] = counts.get(code, 0) + 1
            out.append("%s => %s => %d" % (line, escape(stdout.rstrip("\n")), code))
        with open(os.path.join(TESTS, "cases.txt"), "w") as f:
            f.write("\n".join(out) + "\n")
    print("%d table cases (exit 0: %d, exit 1: %d, exit 2: %d)"
          % (len(cases), counts.get(0, 0), counts.get(1, 0), counts.get(2, 0)), file=sys.stderr)


if __name__ == "__main__":
    main()
