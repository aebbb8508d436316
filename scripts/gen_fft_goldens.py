#!/usr/bin/env python3
"""Writes onnx-eval/src/ops/goldens/fft_numpy.txt: numpy's float32 and float64 FFTs of a fixed
signal, bit for bit, for the lengths whose radices onnx-eval's `fft` module computes as numpy
does (onnx.reference takes its DFT from np.fft). One line per transform:

    <dtype> <forward|inverse> <n> <hex bits of re0> <hex bits of im0> ...

The signal is exact in float32: x_k = ((7k mod 11) - 5)/4 + i ((3k mod 13) - 6)/8.
`--check` regenerates and compares with the committed file.
"""
import pathlib
import sys

import numpy as np

OUT = pathlib.Path(__file__).resolve().parent.parent / "onnx-eval/src/ops/goldens/fft_numpy.txt"
LENGTHS = [2, 3, 4, 5, 6, 8, 9, 10, 12, 15, 16, 20, 24, 25, 30, 32, 40, 45, 48, 60, 64, 90, 100, 128]


def signal(n, dtype):
    k = np.arange(n)
    return (((7 * k) % 11 - 5) / 4 + 1j * (((3 * k) % 13 - 6) / 8)).astype(dtype)


def render():
    lines = [f"# numpy {np.__version__}: scripts/gen_fft_goldens.py"]
    for dtype, real, bits in [(np.complex64, np.float32, np.uint32), (np.complex128, np.float64, np.uint64)]:
        for n in LENGTHS:
            x = signal(n, dtype)
            for direction, y in [("forward", np.fft.fft(x)), ("inverse", np.fft.ifft(x))]:
                assert y.dtype == dtype
                parts = np.stack([y.real, y.imag], axis=1).astype(real).reshape(-1).view(bits)
                width = 8 if real == np.float32 else 16
                lines.append(" ".join([real.__name__, direction, str(n)] + [f"{int(v):0{width}x}" for v in parts]))
    return "\n".join(lines) + "\n"


def main():
    text = render()
    if "--check" in sys.argv:
        if OUT.read_text() != text:
            sys.exit(f"{OUT} is out of date")
        print(f"{OUT}: up to date")
        return
    OUT.write_text(text)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
