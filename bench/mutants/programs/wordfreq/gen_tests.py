#!/usr/bin/env python3
"""Generate the stdin tests of wordfreq under tests/.

Builds wordfreq.c with gcc in a temporary directory, draws a fixed (seeded)
set of inputs and option lists, runs the correct program on each and writes
NAME.in (stdin), NAME.out (expected stdout), NAME.args (arguments, when there
are any) and NAME.exit (exit status, when it is not 0). Old test files are
removed first, so running it again reproduces the same files.
"""
import glob
import os
import random
import shlex
import string
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "tests")
SEED = 1729
WORD_CHARS = string.ascii_lowercase + string.digits
SEPARATORS = [" ", " ", " ", "  ", "\n", "\t", ", ", ". ", "; ", "! ", "? ", " - ",
              "\r\n", "'", "\"", "(", ") ", "_", "/", "...", " * "]


def build(tmp):
    exe = os.path.join(tmp, "wordfreq")
    subprocess.run(
        ["gcc", "-O0", "-Wall", "-Wextra", "-Werror", "-o", exe,
         os.path.join(HERE, "wordfreq.c")],
        check=True,
    )
    return exe


def make_word(rng, lo=1, hi=10):
    n = rng.randint(lo, hi)
    first = rng.choice(string.ascii_lowercase) if rng.random() < 0.9 else rng.choice(string.digits)
    return first + "".join(rng.choice(WORD_CHARS if rng.random() < 0.2 else string.ascii_lowercase)
                           for _ in range(n - 1))


def vary_case(rng, word):
    r = rng.random()
    if r < 0.7:
        return word
    if r < 0.8:
        return word.upper()
    if r < 0.9:
        return word.capitalize()
    return "".join(c.upper() if rng.random() < 0.5 else c for c in word)


def join_words(rng, words):
    parts = []
    for w in words:
        parts.append(vary_case(rng, w))
        parts.append(rng.choice(SEPARATORS))
    if parts and rng.random() < 0.2:
        parts.pop()
    if rng.random() < 0.2:
        parts.insert(0, rng.choice(SEPARATORS))
    return "".join(parts)


def random_text(rng):
    vocab_size = rng.choice([1, 2, 3, 5, 8, 12, 20, 40, 80])
    vocab = []
    while len(vocab) < vocab_size:
        w = make_word(rng, 1, rng.choice([4, 8, 12]))
        if w not in vocab:
            vocab.append(w)
    weights = [1.0 / (i + 1) ** rng.choice([0.5, 1.0, 1.5]) for i in range(vocab_size)]
    count = rng.choice([1, 2, 4, 10, 25, 60, 150, 300])
    words = rng.choices(vocab, weights=weights, k=count)
    return join_words(rng, words)


def random_args(rng):
    r = rng.random()
    if r < 0.4:
        return []
    args = []
    if rng.random() < 0.7:
        args += ["-n", str(rng.choice([0, 1, 2, 3, 4, 6, 8, 10, 20, 100]))]
    if rng.random() < 0.5:
        args += ["-m", str(rng.choice([1, 2, 3, 4, 5, 6, 8]))]
    if len(args) == 4 and rng.random() < 0.5:
        args = args[2:] + args[:2]
    return args


def fixed_cases(rng):
    cases = []

    def add(name, text, args=None):
        cases.append((name, text.encode("latin-1"), args or []))

    add("edge-empty", "")
    add("edge-blank", "   \n\t\n  \n")
    add("edge-punct-only", "... !!! ,,, --- ???\n")
    add("edge-one-word", "hello\n")
    add("edge-one-word-no-newline", "hello")
    add("edge-repeat", "go go go go go\n")
    add("edge-case-fold", "The THE the tHe Cat CAT cat\n")
    add("edge-digits", "42 42 007 7 a42 42a 42\n")
    add("edge-ties-alpha", "pear apple fig banana cherry date\n")
    add("edge-ties-counts", "b a c b a c d e e f\n")
    add("edge-six-distinct", "one two three four five six one two three four five one\n")
    add("edge-punct-split", "don't stop: it's well-known, e-mail x.y.z\n")
    add("edge-underscore", "snake_case_word snake case\n")
    add("edge-crlf", "alpha\r\nbeta\r\nalpha\r\n")
    add("edge-tabs", "x\ty\tz\tx\n")
    add("edge-high-bytes", "caf\xe9 na\xefve caf\xe9 r\xe9sum\xe9\n")
    add("edge-brackets", "[a] {b} (c) <a> |b| a@b a#c\n")
    add("edge-len-30", "a" * 30 + " " + "a" * 30 + "\n")
    add("edge-len-31", "b" * 31 + " " + "b" * 31 + " " + "b" * 30 + "\n")
    add("edge-len-32", "c" * 32 + " " + "c" * 31 + "\n")
    add("edge-len-40-merge", "d" * 31 + "x" * 9 + " " + "d" * 31 + "y" * 9 + "\n")
    add("edge-len-100", "e" * 100 + " short e\n")
    add("edge-width-2", ("w " * 12) + "v v\n")
    add("edge-width-3", ("many " * 150) + "few few\n")
    add("edge-width-4", ("lots " * 1200) + "some\n")
    add("edge-width-mixed", ("big " * 10) + ("mid " * 9) + "small\n")
    add("edge-alpha-prefix", "ab abc a abcd ab a abc\n")
    add("edge-digit-order", "9 10 1 100 z 0\n")
    add("edge-multiline", "first line here\nsecond line here\n\nthird LINE\n")
    text = "the quick brown fox jumps over the lazy dog and the dog sleeps\n"
    add("opt-default", text)
    add("opt-n0", text, ["-n", "0"])
    add("opt-n1", text, ["-n", "1"])
    add("opt-n2", text, ["-n", "2"])
    add("opt-n5", text, ["-n", "5"])
    add("opt-n6", text, ["-n", "6"])
    add("opt-n10", text, ["-n", "10"])
    add("opt-n100000", text, ["-n", "100000"])
    add("opt-n-leading-zero", text, ["-n", "007"])
    add("opt-m1", text, ["-m", "1"])
    add("opt-m3", text, ["-m", "3"])
    add("opt-m4", text, ["-m", "4"])
    add("opt-m5", text, ["-m", "5"])
    add("opt-m6", text, ["-m", "6"])
    add("opt-m100", text, ["-m", "100"])
    add("opt-n-then-m", text, ["-n", "2", "-m", "4"])
    add("opt-m-then-n", text, ["-m", "4", "-n", "2"])
    add("opt-n-twice", text, ["-n", "1", "-n", "3"])
    add("opt-m-twice", text, ["-m", "9", "-m", "2"])
    add("opt-m-long-words", "x" * 35 + " " + "y" * 20 + " " + "x" * 35 + "\n", ["-m", "32"])
    add("opt-m31", "p" * 31 + " " + "q" * 30 + " " + "r" * 33 + "\n", ["-m", "31"])
    add("opt-n0-empty", "", ["-n", "0"])
    bad = [
        ("bad-unknown", ["-x"]),
        ("bad-unknown-value", ["-x", "3"]),
        ("bad-n-missing", ["-n"]),
        ("bad-m-missing", ["-m"]),
        ("bad-n-word", ["-n", "abc"]),
        ("bad-n-negative", ["-n", "-1"]),
        ("bad-n-plus", ["-n", "+3"]),
        ("bad-n-trailing", ["-n", "3x"]),
        ("bad-n-empty", ["-n", ""]),
        ("bad-n-space", ["-n", " 3"]),
        ("bad-n-huge", ["-n", "100001"]),
        ("bad-n-overflow", ["-n", "99999999999999999999"]),
        ("bad-m-zero", ["-m", "0"]),
        ("bad-m-negative", ["-m", "-2"]),
        ("bad-m-word", ["-m", "two"]),
        ("bad-positional", ["file.txt"]),
        ("bad-dashdash", ["--"]),
        ("bad-joined", ["-n3"]),
        ("bad-after-good", ["-n", "3", "-q"]),
        ("bad-missing-after-good", ["-m", "2", "-n"]),
        ("bad-n-upper", ["-N", "3"]),
        ("bad-long", ["--top", "3"]),
    ]
    for name, args in bad:
        add(name, text, args)
    return cases


def distinct_words(rng, n):
    seen = set()
    out = []
    while len(out) < n:
        w = make_word(rng, 3, 9)
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out


def full_cases(rng):
    cases = []

    def add(name, words, args=None):
        cases.append((name, join_words(rng, words).encode("latin-1"), args or []))

    for n in (255, 256, 257, 300):
        ws = distinct_words(rng, n)
        add("full-%d-distinct" % n, ws)
    ws = distinct_words(rng, 256)
    add("full-256-then-repeat", ws + ws[:40] + ws[::7])
    add("full-256-then-new", ws + ws[:10] + ["zzzzzzzzzzzzz"] + ws[:5])
    ws = distinct_words(rng, 280)
    rng.shuffle(ws)
    add("full-280-n3", ws + ws[:50], ["-n", "3"])
    long_ws = [w for w in distinct_words(rng, 700) if len(w) >= 6][:250]
    short_ws = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"]
    mixed = long_ws + short_ws * 3
    rng.shuffle(mixed)
    add("full-filtered-by-m", mixed, ["-m", "6"])
    add("full-unfiltered", mixed)
    ws = ["w%03d" % i for i in range(257)]
    add("full-numbered-257", ws)
    add("full-numbered-256", ws[:256] + ws[:256:3], ["-n", "8"])
    return cases


def main():
    rng = random.Random(SEED)
    cases = fixed_cases(rng) + full_cases(rng)
    for i in range(330):
        cases.append(("rand-%03d" % i, random_text(rng).encode("latin-1"), random_args(rng)))
    os.makedirs(TESTS, exist_ok=True)
    for ext in ("in", "out", "args", "exit"):
        for path in glob.glob(os.path.join(TESTS, "*." + ext)):
            os.remove(path)
    with tempfile.TemporaryDirectory() as tmp:
        exe = build(tmp)
        for name, stdin, args in cases:
            res = subprocess.run([exe] + args, input=stdin, capture_output=True, timeout=10)
            base = os.path.join(TESTS, name)
            with open(base + ".in", "wb") as f:
                f.write(stdin)
            with open(base + ".out", "wb") as f:
                f.write(res.stdout)
            if args:
                with open(base + ".args", "w") as f:
                    f.write(" ".join(shlex.quote(a) for a in args) + "\n")
            if res.returncode != 0:
                with open(base + ".exit", "w") as f:
                    f.write("%d\n" % res.returncode)
    print("wrote %d tests to tests/" % len(cases))


if __name__ == "__main__":
    main()
