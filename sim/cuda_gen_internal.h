/* cuda_gen_internal.h: what the CUDA backend's two source files share. */
#pragma once

/* The fixed C++ text of a generated program (cuda_harness.c). */
extern const char cuda_harness_device[];
extern const char cuda_harness_host[];
extern const char cuda_harness_main[];
