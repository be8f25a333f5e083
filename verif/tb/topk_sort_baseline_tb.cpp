// SPDX-License-Identifier: Apache-2.0
// The sorting-network top-k baseline (gen/baselines.cpp, block
// topk_sort_baseline) has Orizuru's interface and handshake with a build of
// 1 + its network's register ranks (Derived::topk_sort_baseline), and the same
// outputs (model/cycle/topk_sort_baseline.hpp; the unit test test_baselines
// checks the network against orizuru_topk): the same testbench checks it
// against the same cycle model.
#define OASIS_TOPK_BASELINE 1
#define OASIS_TOPK_SORT 1
#define OASIS_TOPK_BLOCK "topk_sort_baseline"
#include "verif/tb/orizuru_tb.cpp"
