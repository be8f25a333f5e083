// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// Specification helper of the Orizuru proof: the winner of a knockout tournament over
/// Channels binary16 values (padded with unavailable entries to a power of two), every
/// comparison made by the generated comparator block (module name in the macro OASIS_CMP,
/// which the comparator proof shows equal to the order key). A pair (left, right) of
/// neighbours goes to the right one if it is available and the left one is not, or, with
/// both available, on the max side if right > left (ties to the lower channel), on the min
/// side if not right > left (ties to the higher channel). The lemmas of
/// oasis_formal_topk_lemmas.sv prove this equals the linear scan oasis_spec_topk_scan.
module oasis_formal_topk_tree #(
  /// Entries N.
  parameter int Channels = 8,
  /// Width of the returned channel.
  parameter int ChanBits = 3,
  /// 0: the max side, 1: the min side.
  parameter bit MinSide = 1'b0
) (
  /// Entry j, binary16, at [j*16 +: 16].
  input  logic [Channels*16-1:0] val_i,
  /// Entry j takes part when bit j is set.
  input  logic [Channels-1:0]    avail_i,
  /// The winner's channel (meaningful when some entry is available).
  output logic [ChanBits-1:0]    chan_o
);

  localparam int Levels = $clog2(Channels);
  localparam int Leaves = 1 << Levels;
  localparam int IdxBits = Levels > 0 ? Levels : 1;

  // Level l's entries: value at [(l*Leaves + p)*16 +: 16], index, availability.
  logic [(Levels+1)*Leaves*16-1:0]      val;
  logic [(Levels+1)*Leaves*IdxBits-1:0] idx;
  logic [(Levels+1)*Leaves-1:0]         avail;

  for (genvar j = 0; j < Leaves; j++) begin : g_leaf
    if (j < Channels) begin : g_real
      assign val[j*16 +: 16] = val_i[j*16 +: 16];
      assign avail[j]        = avail_i[j];
    end else begin : g_pad
      assign val[j*16 +: 16] = 16'h0000;
      assign avail[j]        = 1'b0;
    end
    assign idx[j*IdxBits +: IdxBits] = IdxBits'(j);
  end

  for (genvar l = 0; l < Levels; l++) begin : g_level
    for (genvar p = 0; p < (Leaves >> (l + 1)); p++) begin : g_node
      localparam int L = l * Leaves + 2 * p;
      localparam int R = l * Leaves + 2 * p + 1;
      localparam int W = (l + 1) * Leaves + p;
      logic gt, unused_lt, unused_eq, right;
      `OASIS_CMP u_cmp (
        .a_i (val[R*16 +: 16]),
        .b_i (val[L*16 +: 16]),
        .lt_o(unused_lt),
        .eq_o(unused_eq),
        .gt_o(gt)
      );
      assign right = avail[R] && (!avail[L] || (MinSide ? !gt : gt));
      assign val[W*16 +: 16] = right ? val[R*16 +: 16] : val[L*16 +: 16];
      assign idx[W*IdxBits +: IdxBits] = right ? idx[R*IdxBits +: IdxBits]
                                              : idx[L*IdxBits +: IdxBits];
      assign avail[W] = avail[L] || avail[R];
    end
  end

  assign chan_o = ChanBits'(idx[Levels*Leaves*IdxBits +: IdxBits]);

endmodule

`default_nettype wire
