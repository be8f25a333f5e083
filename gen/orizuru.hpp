// SPDX-License-Identifier: Apache-2.0
// The parts of gen/orizuru.cpp that the other top-k engines share: the token
// interface with its load / build / drain handshake, and the manifest of the
// figures the cycle model (model/cycle/orizuru_cycle.hpp) derives.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gen/sv.hpp"
#include "model/cycle/orizuru_cycle.hpp"

namespace oasis::gen {

/// The top module of a top-k engine: ports, state machine, leaf registers and
/// masks around what `core` writes into it, which must drive
/// root_{max,min}_{val,chan} (the next outlier of each side, registered every
/// cycle) and {max,min}_clear (mask bits to clear), and may read leaf_q,
/// {max,min}_avail_d, ValidMask, count_q, stage_q, pop_{max,min}, building.
/// `what` is the first paragraph of the module's documentation.
SvFile topk_top_module(const OrizuruTiming& t, const std::string& module, const std::string& what,
                       const std::function<void(SvModule&)>& core);

/// Manifest figures shared by the top-k engines.
nlohmann::ordered_json topk_timing_manifest(const OrizuruTiming& t);

/// The delay model's estimate of an engine's longest stage (manifest `stage_model`, which
/// make ppa sets beside its measurement): OrizuruTiming::stage_model, its path and its unit
/// named.
nlohmann::ordered_json stage_model(const std::string& path, const std::string& unit,
                                   const StageModel& estimate);

}  // namespace oasis::gen
