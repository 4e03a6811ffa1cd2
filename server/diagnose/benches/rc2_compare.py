"""PySAT's RC2 on a WCNF file: prints the median solve time (ms) over N runs
and the optimal cost.   python rc2_compare.py FILE.wcnf [N]"""
import sys
import time

from pysat.examples.rc2 import RC2Stratified
from pysat.formula import WCNF


def main():
    path = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    wcnf = WCNF(from_file=path)
    times, cost = [], None
    for _ in range(runs):
        start = time.perf_counter()
        with RC2Stratified(wcnf, solver="cd19") as rc2:
            model = rc2.compute()
            cost = rc2.cost if model is not None else None
        times.append((time.perf_counter() - start) * 1000.0)
    times.sort()
    print(f"{times[len(times) // 2]:.1f} {cost}")


if __name__ == "__main__":
    main()
