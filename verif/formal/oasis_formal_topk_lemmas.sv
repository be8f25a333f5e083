// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// Lemmas that turn the Orizuru proof's tournament into the linear scan of docs/spec.md section 5
/// (read with `read_verilog -formal`; the comparator block's module name comes in as the
/// macro OASIS_CMP). For all Channels binary16 values and every availability mask with
/// some entry available, on the side MinSide:
///   oasis_formal_topk_tree (the tournament built from the comparator block, the one the
///   Orizuru proof compares the engine with) == oasis_spec_topk_tree (the same tournament
///   on order keys) == oasis_spec_topk_scan (the linear scan).
/// The two equalities are separate modules, so that each is one small SAT problem.
module oasis_formal_topk_tree_keys #(
  /// Entries N.
  parameter int Channels = 8,
  /// Width of a channel.
  parameter int ChanBits = 3,
  /// 0: the max side, 1: the min side.
  parameter bit MinSide = 1'b0
) (
  /// Free values and mask.
  input logic [Channels*16-1:0] val_i,
  input logic [Channels-1:0]    avail_i
);

  logic [Channels*17-1:0] key;
  for (genvar j = 0; j < Channels; j++) begin : g_key
    oasis_spec_order_key u_key (.x_i(val_i[j*16 +: 16]), .key_o(key[j*17 +: 17]));
  end

  logic [ChanBits-1:0] by_block, by_key;
  oasis_formal_topk_tree #(
    .Channels(Channels), .ChanBits(ChanBits), .MinSide(MinSide)
  ) u_block (
    .val_i  (val_i),
    .avail_i(avail_i),
    .chan_o (by_block)
  );
  oasis_spec_topk_tree #(
    .Channels(Channels), .ChanBits(ChanBits), .MinSide(MinSide)
  ) u_key_tree (
    .key_i  (key),
    .avail_i(avail_i),
    .chan_o (by_key)
  );

  always_comb begin
    if (|avail_i) assert (by_block == by_key);
  end

endmodule

module oasis_formal_topk_tree_scan #(
  /// Entries N.
  parameter int Channels = 8,
  /// Width of a channel.
  parameter int ChanBits = 3,
  /// 0: the max side, 1: the min side.
  parameter bit MinSide = 1'b0,
  /// 1: the scan breaks ties the wrong way (the run must then fail).
  parameter bit Broken = 1'b0
) (
  /// Free keys and mask.
  input logic [Channels*17-1:0] key_i,
  input logic [Channels-1:0]    avail_i
);

  logic [ChanBits-1:0] by_tree, by_scan;
  oasis_spec_topk_tree #(
    .Channels(Channels), .ChanBits(ChanBits), .MinSide(MinSide)
  ) u_tree (
    .key_i  (key_i),
    .avail_i(avail_i),
    .chan_o (by_tree)
  );
  oasis_spec_topk_scan #(
    .Channels(Channels), .ChanBits(ChanBits), .MinSide(MinSide), .Broken(Broken)
  ) u_scan (
    .key_i  (key_i),
    .avail_i(avail_i),
    .chan_o (by_scan)
  );

  always_comb begin
    if (|avail_i) assert (by_tree == by_scan);
  end

endmodule

`default_nettype wire
