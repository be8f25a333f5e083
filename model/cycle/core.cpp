// SPDX-License-Identifier: Apache-2.0
#include "model/cycle/core.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>

#include "model/quant/lut_gemm.hpp"

namespace oasis {

Core::Core(const Config& c)
    : config_(c), timing_(derive(c).core), regs_(c), cu_(c), oz_(derive(c).orizuru) {
  for (int p = 0; p < c.pe_lines; ++p) lines_.emplace_back(c);
  reset();
}

void Core::reset() {
  const Config& c = config_;
  const size_t k2 = size_t(timing_.outliers);
  regs_ = RegFileModel(c);
  cu_.reset();
  oz_ = OrizuruCycle(derive(c).orizuru);
  for (auto& l : lines_) l.reset();
  cycle_ = 0;
  rvalid_ = false;
  rdata_ = 0;
  in_beat_ = 0;
  slot_busy_ = hold_valid_ = idx_done_ = next_full_ = false;
  hold_part_ = out_beat_ = out_part_ = ecu_count_ = 0;
  hold_.assign(size_t(timing_.beat_activations), Fp16{});
  ecu_.clear();
  for (PeLineContext* x : {&next_, &cur_}) {
    x->act_index.assign(size_t(c.channels), 0);
    x->outlier_channels.assign(k2, 0);
    x->residuals.assign(k2, Fp16{});
    x->act_scale = Fp16{};
    x->lut = region("lut");
    x->weight_codebook = region("weight_codebook");
  }
  ctx_valid_ = group_last_ = last_seen_ = false;
  w_beat_ = group_rows_ = 0;
  rows_total_ = out_count_ = 0;
}

std::vector<Fp16> Core::region(const std::string& name) const {
  std::vector<Fp16> v;
  for (uint16_t w : regs_.region(name)) v.push_back(Fp16{w});
  return v;
}

bool Core::lines_idle() const {
  return std::all_of(lines_.begin(), lines_.end(), [](const PeLine& l) { return l.idle(); });
}

bool Core::x_ready() const {
  const bool hold_ok =
      !hold_valid_ || (hold_part_ == timing_.clustering_parts - 1 && cu_.act_ready(true));
  return (in_beat_ != 0 || !slot_busy_) && oz_.in_ready() && hold_ok;
}

bool Core::w_ready() const {
  return ctx_valid_ &&
         std::all_of(lines_.begin(), lines_.end(), [](const PeLine& l) { return l.w_ready(); });
}

int Core::y_rows() const {
  const uint64_t left = rows_total_ - out_count_;
  return last_seen_ && left < uint64_t(timing_.lines) ? int(left) : timing_.lines;
}

bool Core::y_valid() const {
  const int rows = y_rows();
  if (rows == 0) return false;
  for (int p = 0; p < rows; ++p) {
    if (!lines_[size_t(p)].y_valid()) return false;
  }
  return true;
}

std::vector<Fp16> Core::y_data() const {
  std::vector<Fp16> y(size_t(timing_.lines), Fp16{});
  for (int p = 0; p < timing_.lines; ++p) y[size_t(p)] = lines_[size_t(p)].y_data();
  return y;
}

bool Core::idle() const { return !slot_busy_ && !ctx_valid_ && lines_idle(); }

void Core::clock(const CoreInputs& in) {
  const Config& c = config_;
  const int R = timing_.beat_activations, L = c.clustering_lanes, P = c.pe_lines;
  const int Wb = c.weight_beat_indices, F = timing_.group_beats;
  const int parts = timing_.clustering_parts, beats = timing_.token_beats;
  const int k2 = timing_.outliers;

  // Everything below is decided from the state before the edge.
  const bool x_fire = in.x_valid && x_ready();
  const bool w_fire = in.w_valid && w_ready();
  const bool y_fire = y_valid() && in.y_ready;
  const int y_rows = this->y_rows();
  const bool cu_fire = hold_valid_ && cu_.act_ready(true);
  const bool idx_valid = cu_.idx_valid();
  const std::vector<int> idx = cu_.idx_data();
  const bool ecu_fire = oz_.out_valid() && idx_done_;
  const Outlier outlier = oz_.out_valid() ? oz_.out() : Outlier{};
  const bool do_switch = next_full_ && !ctx_valid_ && lines_idle();
  const std::vector<Fp16> boundaries = region("boundaries");

  // The Clustering Unit gets one part of the held beat.
  std::vector<Fp16> lanes(size_t(L), Fp16{});
  for (int i = 0; i < L; ++i) {
    const int o = hold_part_ * L + i;
    if (o < R) lanes[size_t(i)] = hold_[size_t(o)];
  }
  cu_.clock(hold_valid_, lanes, boundaries, true);
  oz_.step(x_fire, in.x_data, idx_done_);

  // The Error Calculation Unit: r = x̂[o] - C_A[ia[o]], S registers.
  if (ecu_fire) {
    const Fp16 ca{regs_.region("act_codebook")[next_.act_index[size_t(outlier.channel)]]};
    ecu_.push_back(
        {cycle_ + uint64_t(timing_.ecu_latency), sub(outlier.value, ca), outlier.channel});
  }

  // The lines: group beats to every line with a row in the group.
  const bool first = w_beat_ == 0;
  const int rows_in = in.w_last && in.w_rows >= 1 && in.w_rows <= P ? in.w_rows : P;
  const int rows = first ? rows_in : group_rows_;
  const bool last_group = first ? in.w_last : group_last_;
  for (int p = 0; p < P; ++p) {
    std::span<const uint8_t> lane;
    Fp16 scale{};
    if (in.w_valid && in.w_data.size() == size_t(P * Wb)) {
      lane = std::span<const uint8_t>(in.w_data).subspan(size_t(p * Wb), size_t(Wb));
      scale = in.w_scale[size_t(p)];
    }
    lines_[size_t(p)].clock(w_fire && p < rows, lane, scale, y_fire && p < y_rows);
  }

  // The register port: a read returns the word before this edge's write.
  rvalid_ = in.reg_re;
  if (in.reg_re) rdata_ = regs_.read(in.reg_addr);
  if (in.reg_we) regs_.write(in.reg_addr, in.reg_wdata);

  // Token side registers.
  if (x_fire) {
    if (in_beat_ == 0) {
      slot_busy_ = true;
      next_.act_scale = in.x_scale;
    }
    hold_ = in.x_data;
    hold_valid_ = true;
    hold_part_ = 0;
    in_beat_ = in_beat_ == beats - 1 ? 0 : in_beat_ + 1;
  } else if (cu_fire) {
    if (hold_part_ == parts - 1) {
      hold_valid_ = false;
    } else {
      ++hold_part_;
    }
  }
  if (idx_valid) {
    for (int i = 0; i < L; ++i) {
      const int o = out_part_ * L + i;
      const int ch = out_beat_ * R + o;
      if (o < R && ch < c.channels) next_.act_index[size_t(ch)] = uint8_t(idx[size_t(i)]);
    }
    if (++out_part_ == parts) {
      out_part_ = 0;
      if (++out_beat_ == beats) {
        out_beat_ = 0;
        idx_done_ = true;
      }
    }
  }
  while (!ecu_.empty() && ecu_.front().due == cycle_) {
    next_.residuals[size_t(ecu_count_)] = ecu_.front().r;
    next_.outlier_channels[size_t(ecu_count_)] = ecu_.front().channel;
    ecu_.pop_front();
    if (++ecu_count_ == k2) {
      ecu_count_ = 0;
      next_full_ = true;
    }
  }

  // Weight and output side registers.
  if (w_fire) {
    if (first) {
      group_rows_ = rows_in;
      group_last_ = in.w_last;
    }
    if (w_beat_ == F - 1) {
      w_beat_ = 0;
      rows_total_ += uint64_t(rows);
      if (last_group) {
        ctx_valid_ = false;
        last_seen_ = true;
      }
    } else {
      ++w_beat_;
    }
  }
  if (y_fire) out_count_ += uint64_t(y_rows);
  if (do_switch) {
    cur_ = next_;
    cur_.lut = region("lut");
    cur_.weight_codebook = region("weight_codebook");
    for (auto& l : lines_) l.set_context(cur_);
    ctx_valid_ = true;
    slot_busy_ = next_full_ = idx_done_ = last_seen_ = false;
    rows_total_ = out_count_ = 0;
  }
  ++cycle_;
}

}  // namespace oasis

namespace oasis {

std::vector<CoreTokenRun> run_core(const Config& c, const LutGemm& gemm,
                                   const std::vector<std::vector<Fp16>>& xhat,
                                   const std::vector<Fp16>& act_scale,
                                   const std::vector<std::vector<uint8_t>>& iw,
                                   const std::vector<Fp16>& sw, const CoreRunOptions& o) {
  Core core(c);
  const CoreTiming& tm = core.timing();
  const int P = c.pe_lines, R = tm.beat_activations, Wb = c.weight_beat_indices;
  const int rows = int(iw.size()), groups = int(derive(c).row_groups(rows));
  std::mt19937_64 rng(o.seed);
  const auto coin = [&](double p) { return p > 0 && std::bernoulli_distribution(p)(rng); };

  std::deque<std::pair<int, uint16_t>> writes;
  const auto map = register_map(c);
  const auto put = [&](const std::string& name, const std::vector<Fp16>& v) {
    for (const auto& r : map) {
      if (r.name != name) continue;
      for (size_t i = 0; i < v.size(); ++i) writes.emplace_back(r.base + int(i), v[i].bits);
    }
  };
  put("lut", gemm.lut());
  put("act_codebook", gemm.act_codebook());
  put("weight_codebook", gemm.weight_codebook());
  put("boundaries", gemm.boundaries());

  std::vector<CoreTokenRun> out(xhat.size());
  size_t x_token = 0, w_token = 0, y_token = 0, ctx_token = 0;
  int x_beat = 0, w_group = 0, w_beat = 0;
  for (uint64_t cyc = 0; y_token < xhat.size(); ++cyc) {
    if (cyc > o.max_cycles) throw std::runtime_error("run_core: no progress");
    CoreInputs in;
    in.reg_we = !writes.empty();
    if (in.reg_we) {
      in.reg_addr = writes.front().first;
      in.reg_wdata = writes.front().second;
    }
    in.x_data.assign(size_t(R), Fp16{});
    in.x_valid = writes.empty() && x_token < xhat.size() && !coin(o.x_gap);
    if (in.x_valid) {
      for (int i = 0; i < R; ++i) {
        const int ch = x_beat * R + i;
        if (ch < c.channels) in.x_data[size_t(i)] = xhat[x_token][size_t(ch)];
      }
      in.x_scale = act_scale[x_token];
    }
    in.w_data.assign(size_t(P * Wb), 0);
    in.w_scale.assign(size_t(P), Fp16{});
    in.w_valid = w_token < xhat.size() && !coin(o.w_gap);
    if (in.w_valid) {
      for (int p = 0; p < P; ++p) {
        const int n = w_group * P + p;
        if (n >= rows) continue;
        for (int i = 0; i < Wb && w_beat * Wb + i < c.channels; ++i) {
          in.w_data[size_t(p * Wb + i)] = iw[size_t(n)][size_t(w_beat * Wb + i)];
        }
        in.w_scale[size_t(p)] = sw[size_t(n)];
      }
      in.w_last = w_group == groups - 1;
      in.w_rows = in.w_last ? rows - w_group * P : P;
    }
    in.y_ready = !coin(o.backpressure);

    const bool x_fire = in.x_valid && core.x_ready();
    const bool w_fire = in.w_valid && core.w_ready();
    if (core.y_valid() && in.y_ready) {
      const std::vector<Fp16> y = core.y_data();
      for (int p = 0; p < core.y_rows(); ++p) {
        out[y_token].y.push_back(y[size_t(p)]);
        out[y_token].y_last.push_back(core.y_last());
      }
      if (int(out[y_token].y.size()) >= rows) out[y_token++].last_output = int64_t(cyc);
    }
    const bool pending = core.context_pending();
    core.clock(in);
    if (in.reg_we) writes.pop_front();
    if (!pending && core.context_pending()) {
      out[ctx_token++].context_ready = int64_t(cyc);  // tokens are pre-processed in order
    }
    if (x_fire) {
      if (x_beat == 0) out[x_token].first_beat = int64_t(cyc);
      if (++x_beat == tm.token_beats) {
        x_beat = 0;
        ++x_token;
      }
    }
    if (w_fire) {
      if (w_group == 0 && w_beat == 0) out[w_token].first_weight = int64_t(cyc);
      if (++w_beat == tm.group_beats) {
        w_beat = 0;
        if (++w_group == groups) {
          w_group = 0;
          ++w_token;
        }
      }
    }
  }
  return out;
}

}  // namespace oasis
