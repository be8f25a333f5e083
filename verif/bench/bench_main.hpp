// SPDX-License-Identifier: Apache-2.0
// The benchmarks' main: Google Benchmark's console output, and exit status 1 when a
// benchmark failed (SkipWithError: a tool that did not run, an output it could not read),
// so that `make bench` stops there instead of printing the error and going on.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <vector>

namespace oasis::bench {

// The console reporter, counting the runs that failed.
class Reporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) failed_ += r.error_occurred ? 1 : 0;
    ConsoleReporter::ReportRuns(runs);
  }
  int failed() const { return failed_; }

 private:
  int failed_ = 0;
};

inline int run(int argc, char** argv, Reporter& reporter) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  if (reporter.failed() > 0) {
    std::fprintf(stderr, "%s: %d benchmark run(s) failed (ERROR OCCURRED above)\n", argv[0],
                 reporter.failed());
    return 1;
  }
  return 0;
}

}  // namespace oasis::bench

// main() of a benchmark program with the console reporter.
#define OASIS_BENCH_MAIN()                          \
  int main(int argc, char** argv) {                 \
    oasis::bench::Reporter reporter;                \
    return oasis::bench::run(argc, argv, reporter); \
  }
