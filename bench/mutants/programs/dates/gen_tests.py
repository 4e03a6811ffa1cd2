#!/usr/bin/env python3
"""Generate tests/cases.txt for dates.

Builds dates.c with gcc in a temporary directory, draws a fixed (seeded) set
of argument lists, runs the correct program on each and records its stdout and
exit status. Valid results are also checked against Python's datetime.
Running it again reproduces the same file.
"""
import calendar
import datetime
import os
import random
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20240229


def build(tmp):
    exe = os.path.join(tmp, "dates")
    subprocess.run(
        ["gcc", "-O0", "-Wall", "-Wextra", "-Werror", "-o", exe,
         os.path.join(HERE, "dates.c")],
        check=True,
    )
    return exe


def fmt(y, m, d):
    return "%04d-%02d-%02d" % (y, m, d)


def random_date(rng):
    kind = rng.random()
    if kind < 0.5:
        y = rng.randint(1900, 2100)
    elif kind < 0.8:
        y = rng.randint(1, 9999)
    else:
        y = rng.choice([1, 4, 100, 400, 1600, 1700, 1800, 1900, 2000, 2100, 2400, 9996, 9999])
    m = rng.randint(1, 12)
    last = calendar.monthrange(y, m)[1]
    if rng.random() < 0.25:
        d = rng.choice([1, last])
    else:
        d = rng.randint(1, last)
    return datetime.date(y, m, d)


def iso(dt):
    return fmt(dt.year, dt.month, dt.day)


def cases(rng):
    out = []
    # Usage errors.
    out.append([])
    out.append(["2024-01-01", "+1", "extra"])
    out.append(["2024-01-01", "2024-01-02", "2024-01-03"])
    # Fixed valid dates for the weekday/day-of-year form.
    fixed = [
        "0001-01-01", "9999-12-31", "2000-02-29", "1900-02-28", "2100-02-28",
        "2024-02-29", "1600-02-29", "2023-12-31", "2024-12-31", "2024-03-01",
        "2023-03-01", "1970-01-01", "2038-01-19", "1-1-1", "12-3-4", "9999-1-1",
        "400-12-31", "100-03-01", "0004-02-29", "2024-07-04", "1999-12-31",
        "000001-01-01", "009999-12-31", "2024-06-30", "2024-09-30", "2024-11-30",
        "2024-04-30", "2023-08-31", "2023-10-31", "2023-05-31", "2023-01-31",
    ]
    for text in fixed:
        out.append([text])
    # Invalid dates.
    invalid = [
        "1900-02-29", "2023-02-29", "2024-02-30", "2100-02-29", "2024-13-01",
        "2024-00-10", "2024-04-31", "2024-06-31", "2024-09-31", "2024-11-31",
        "2024-01-32", "2024-01-00", "0000-01-01", "10000-01-01", "0000000-01-01",
        "2024/01/01", "2024-1", "abc", "", "2024-01-01x", "2024-001-01",
        "2024-01-001", "-2024-01-01", "2024--01", "2024-01-", "-01-01",
        "2024-01-1 ", " 2024-01-01", "2024-1a-01", "20x4-01-01", "2024-12-31-",
        "1234567-01-01", "2024-99-99", "+2024-01-01", "2024-02-29-",
    ]
    for text in invalid:
        out.append([text])
    for text in invalid[:14]:
        out.append([text, "+1"])
        out.append(["2024-01-01", text])
    # Offsets: fixed edge cases.
    offsets = [
        ("2024-02-28", "+1"), ("2023-02-28", "+1"), ("2024-02-29", "+365"),
        ("2024-02-29", "+366"), ("2024-02-29", "-366"), ("2024-03-01", "-1"),
        ("2023-03-01", "-1"), ("2024-12-31", "+1"), ("2025-01-01", "-1"),
        ("0001-01-01", "+0"), ("0001-01-01", "-0"), ("0001-01-01", "-1"),
        ("9999-12-31", "+1"), ("9999-12-31", "+0"), ("9999-12-31", "-3652058"),
        ("9999-12-31", "-3652059"), ("0001-01-01", "+3652058"),
        ("0001-01-01", "+3652059"), ("2000-01-01", "+9999999"),
        ("2000-01-01", "-9999999"), ("2000-01-01", "+10000000"),
        ("2000-01-01", "-10000000"), ("2000-01-01", "+00000001"),
        ("2000-01-01", "+000000001"), ("2000-01-01", "+"), ("2000-01-01", "-"),
        ("2000-01-01", "+x"), ("2000-01-01", "+1a"), ("2000-01-01", "++1"),
        ("2000-01-01", "+-1"), ("2000-01-01", "-+1"), ("2000-01-01", "+ 1"),
        ("2000-01-01", "+123456789"), ("1900-02-28", "+1"), ("2100-02-28", "+1"),
        ("2000-02-28", "+1"), ("1600-02-28", "+1"), ("1999-12-31", "+1"),
        ("2024-01-31", "+29"), ("2024-01-31", "+30"), ("2023-01-31", "+28"),
        ("2024-07-15", "+146097"), ("2024-07-15", "-146097"),
        ("2024-10-31", "+31"), ("2024-05-31", "-31"),
    ]
    for date, off in offsets:
        out.append([date, off])
    # Differences: fixed edge cases.
    diffs = [
        ("2024-01-01", "2024-01-01"), ("2024-01-01", "2025-01-01"),
        ("2023-01-01", "2024-01-01"), ("2025-01-01", "2024-01-01"),
        ("0001-01-01", "9999-12-31"), ("9999-12-31", "0001-01-01"),
        ("1900-01-01", "2000-01-01"), ("2000-01-01", "2100-01-01"),
        ("1600-01-01", "2000-01-01"), ("2024-02-28", "2024-03-01"),
        ("2023-02-28", "2023-03-01"), ("1970-01-01", "2038-01-19"),
        ("1-1-1", "1-12-31"), ("2024-12-31", "2025-01-01"),
    ]
    for a, b in diffs:
        out.append([a, b])
    # Random cases of each form.
    for _ in range(90):
        out.append([iso(random_date(rng))])
    for _ in range(100):
        dt = random_date(rng)
        r = rng.random()
        if r < 0.4:
            n = rng.randint(0, 400)
        elif r < 0.8:
            n = rng.randint(0, 50000)
        else:
            n = rng.randint(0, 4000000)
        sign = rng.choice(["+", "-"])
        out.append([iso(dt), sign + str(n)])
    for _ in range(90):
        a = random_date(rng)
        if rng.random() < 0.5:
            b = random_date(rng)
        else:
            lo = max(1, a.toordinal() - 800)
            hi = min(datetime.date(9999, 12, 31).toordinal(), a.toordinal() + 800)
            b = datetime.date.fromordinal(rng.randint(lo, hi))
        out.append([iso(a), iso(b)])
    # Random malformed dates: corrupt one character of a valid one.
    for _ in range(25):
        text = list(iso(random_date(rng)))
        i = rng.randrange(len(text))
        text[i] = rng.choice(["/", "x", " ", ".", "-", "0", ""])
        out.append(["".join(text)])
    return out


def check(args, stdout, code):
    """Cross-check a valid run against Python's datetime."""
    if code != 0:
        return
    first = datetime.date.fromisoformat(fmt(*[int(p) for p in args[0].split("-")]))
    if len(args) == 1:
        year_len = 366 if (datetime.date(first.year, 12, 31).timetuple().tm_yday == 366) else 365
        want = "%s, day %d of %d\n" % (
            ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
             "Sunday"][first.weekday()],
            first.timetuple().tm_yday, year_len)
    elif args[1][0] in "+-":
        want = iso(first + datetime.timedelta(days=int(args[1]))) + "\n"
    else:
        second = datetime.date.fromisoformat(fmt(*[int(p) for p in args[1].split("-")]))
        want = "%d\n" % (second - first).days
    if stdout != want:
        sys.exit("mismatch for %r: program %r, datetime %r" % (args, stdout, want))


def escape(text):
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")


def main():
    rng = random.Random(SEED)
    lines = ["# dates tests: ARGS => EXPECTED_STDOUT [=> EXIT]; generated by gen_tests.py"]
    with tempfile.TemporaryDirectory() as tmp:
        exe = build(tmp)
        for args in cases(rng):
            res = subprocess.run([exe] + args, capture_output=True, timeout=10)
            stdout = res.stdout.decode("ascii")
            check(args, stdout, res.returncode)
            if stdout:
                assert stdout.endswith("\n") and " => " not in stdout
                expected = escape(stdout[:-1])
            else:
                expected = ""
            line = " ".join(shlex.quote(a) for a in args)
            line = line + " => " + expected
            if res.returncode != 0:
                line += " => %d" % res.returncode
            lines.append(line)
    os.makedirs(os.path.join(HERE, "tests"), exist_ok=True)
    with open(os.path.join(HERE, "tests", "cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %d tests to tests/cases.txt" % (len(lines) - 1))


if __name__ == "__main__":
    main()
