#!/usr/bin/env python3
"""Decodes the scheduling control bits of a `cuobjdump -sass` listing
(Volta and later: the top 23 bits of each 128-bit instruction) into one line
an instruction: address, instruction, stall count (S: cycles before the
warp's next instruction may issue), the yield hint (Y when set), the
scoreboards it sets for writes and reads (wb, rb) and the wait mask (w).

    python3 scripts/calib/sass_ctl.py LISTING.sass [FUNCTION_SUBSTRING ...]

Only functions whose mangled name contains one of the substrings are
printed (all without any).  Bit layout: the control word is the high 64-bit
half of the instruction shifted right by 41; stall = bits 0-3, yield = bit 4
(0 means yield), write scoreboard = 5-7, read scoreboard = 8-10, wait mask =
11-16 (7 = no scoreboard).
"""
import re
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    want = sys.argv[2:]
    lines = open(sys.argv[1]).read().split("\n")
    show = False
    i = 0
    while i < len(lines):
        m = re.search(r"Function : (\S+)", lines[i])
        if m:
            show = not want or any(w in m.group(1) for w in want)
            if show:
                print("## " + m.group(1))
        m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\* (0x[0-9a-f]+) \*/", lines[i])
        if m and i + 1 < len(lines):
            hi = re.search(r"/\* (0x[0-9a-f]+) \*/", lines[i + 1])
            if show and hi:
                c = int(hi.group(1), 16) >> 41
                wb, rb = (c >> 5) & 7, (c >> 8) & 7
                print("%s %-50s S%02d %s wb%s rb%s w%02x" % (
                    m.group(1), m.group(2)[:50], c & 0xF, "Y" if (c >> 4) & 1 == 0 else "-",
                    wb if wb != 7 else "-", rb if rb != 7 else "-", (c >> 11) & 0x3F))
            i += 2
            continue
        i += 1


if __name__ == "__main__":
    main()
