// SPDX-License-Identifier: Apache-2.0
// The baseline top-k engine (gen/topk_baseline.cpp, block topk_baseline) has
// Orizuru's interface and handshake with one build cycle: the same testbench
// checks it against the same cycle model.
#define OASIS_TOPK_BASELINE 1
#include "verif/tb/orizuru_tb.cpp"
