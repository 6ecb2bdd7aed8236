#!/usr/bin/env python3
"""The card's memory ceilings, measured (docs/gpu.md): a device-to-device copy (bytes read plus
written) and a read-only pass (a sum over the tensor), 4 GiB each, median of 20 after 3 warm-ups,
CUDA events. The read figure is what a decode step's weight reads can reach. Prints one JSON line.
"""
import json

import torch


def timed(fn, reps=20):
    for _ in range(3):
        fn()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return sorted(times)[len(times) // 2]


def main():
    n = 4 << 30
    x = torch.randn(n // 4, device="cuda")  # float32: random, never zeros
    y = torch.empty_like(x)
    copy_s = timed(lambda: y.copy_(x))
    read_s = timed(lambda: x.sum())
    print(json.dumps({"gpu": torch.cuda.get_device_name(), "bytes": n,
                      "copy_gbps": 2 * n / copy_s / 1e9, "read_gbps": n / read_s / 1e9}))


if __name__ == "__main__":
    main()
