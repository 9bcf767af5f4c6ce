"""``python3 -m cube version``: the SDK's version and the server's.

    $ python3 -m cube version
    SDK     0.1.0 (Python 3.11.2)
    Server  0.1.0 (ABI 1.5, store sqlite) at http://127.0.0.1:8080
"""
from __future__ import annotations

import platform
import sys
from typing import List, Optional

USAGE = "usage: python3 -m cube version [--server URL]\n"


def main(argv: Optional[List[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        sys.stdout.write(USAGE)
        return 0 if args else 2
    if args[0] != "version" or len(args) not in (1, 3) or (len(args) == 3 and
                                                           args[1] != "--server"):
        sys.stderr.write(USAGE)
        return 2
    import cube
    print(f"SDK     {cube.__version__} (Python {platform.python_version()})")
    try:
        c = cube.Client(api=args[2] if len(args) == 3 else None)
        v = c.version()
    except cube.Error as e:
        print(f"Server  unknown: {e}", file=sys.stderr)
        return 1
    print(f"Server  {v.get('version', '?')} (ABI {v.get('abi', '?')}, store "
          f"{v.get('store', '?')}) at {c.server}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
