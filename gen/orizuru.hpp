// The parts of gen/orizuru.cpp that the other top-k engines share: the token
// interface with its load / build / drain handshake, and the manifest of the
// figures the cycle model (model/orizuru_cycle.hpp) derives.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "model/orizuru_cycle.hpp"

namespace oasis::gen {

/// The top module of a top-k engine: ports, state machine, leaf registers and
/// masks around `core`, which must drive root_{max,min}_{val,chan} (the next
/// outlier of each side, registered every cycle) and {max,min}_clear (mask
/// bits to clear), and may read leaf_q, {max,min}_avail_d, count_q,
/// pop_{max,min}, building.
std::string topk_top_module(const OrizuruTiming& t, const std::string& module,
                            const std::string& what, const std::string& core);

/// Manifest figures shared by the top-k engines.
nlohmann::ordered_json topk_timing_manifest(const OrizuruTiming& t);

}  // namespace oasis::gen
