"""The campaign's training / held-out split (docs/validation/campaign/README.md).

Decided before any measurement came back and before any fit: whole regimes and
block sizes are held out, never single points.  fit.py and tables.py import
`part()`, so a held-out point cannot enter a fit.
"""

TRAINING = {
    # (regime, threads) -> modes in the training part
    ("alone", 128): {"cold", "warm"},
    ("alone", 256): {"cold", "warm"},
    ("gpu1", 128): {"cold"},
}


# Programs nobody wrote for smpipe's fit: held out in every regime.
HELD_OUT_KERNELS = {"cutlass_multistage", "flash_attention"}


def part(gpu, regime, threads, mode, kernel=""):
    """'train' or 'test' for one point.  Everything on a GPU other than the
    H100 is held out, and so are the real programs."""
    if "H100" not in (gpu or "") or kernel in HELD_OUT_KERNELS:
        return "test"
    return "train" if mode in TRAINING.get((regime, int(threads)), set()) else "test"
