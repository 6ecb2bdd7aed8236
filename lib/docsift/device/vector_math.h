// LibTorch's CPU float unary ops and MKL's vector math: one call per process that makes their
// values the same from the first call on (docs/architecture.md, "The same values every run").
#pragma once

namespace docsift::device {

// LibTorch's CPU kernels for cos, sin, exp, erf, tanh, sqrt, log and a few more hand each worker
// thread's chunk of a float or double tensor to MKL's vector math (VML), at high accuracy. MKL
// picks each function's kernel on that function's first call; when the first call runs on two
// threads at once, one thread can run a low-accuracy kernel for its whole chunk. Seen here:
// RoPE's cos table, [293, 16], its second half off by up to 1.5e-4 (8 runs of 694 on a loaded
// machine), which moved a decode's logits by 1.7e-4. Calling each such function once, on one
// element and so on one thread, settles the choice before any model or recognizer runs.
// Thread-safe; the work is done once per process, later calls cost an atomic load.
void settle_vector_math();

}  // namespace docsift::device
