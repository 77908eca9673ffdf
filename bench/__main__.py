"""Run the benchmarks: ``python -m bench [name ...]`` (default: all bench_*.py)."""
from __future__ import annotations

import importlib
import pkgutil
import sys
import time
import traceback
from pathlib import Path


def main(argv: list[str]) -> int:
    here = Path(__file__).parent
    names = sorted(m.name for m in pkgutil.iter_modules([str(here)]) if m.name.startswith("bench_"))
    wanted = [n if n.startswith("bench_") else f"bench_{n}" for n in argv] or names
    failed = 0
    for name in wanted:
        print(f"\n=== {name} ===", flush=True)
        t0 = time.time()
        try:
            importlib.import_module(f"bench.{name}").main()
        except Exception:  # noqa: BLE001 - report and go on with the others
            traceback.print_exc()
            failed += 1
        print(f"({name}: {time.time() - t0:.1f} s)", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
