// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// Specification helper of the Orizuru proof: the winner of a knockout tournament over
/// Channels order keys (padded with unavailable entries to a power of two). A pair
/// (left, right) of neighbours goes to the right one if it is available and either the
/// left one is not, or, on the max side, the right key is strictly greater (ties to the
/// lower channel), on the min side, the right key is less or equal (ties to the higher
/// channel). oasis_formal_topk_lemmas.sv proves it equal to the same tournament built from
/// the comparator block (oasis_formal_topk_tree) and to the linear scan
/// (oasis_spec_topk_scan), for every input and availability mask.
module oasis_spec_topk_tree #(
  /// Entries N.
  parameter int Channels = 8,
  /// Width of the returned channel.
  parameter int ChanBits = 3,
  /// 0: the max side, 1: the min side.
  parameter bit MinSide = 1'b0
) (
  /// Entry j's order key at [j*17 +: 17] (oasis_spec_order_key).
  input  logic [Channels*17-1:0] key_i,
  /// Entry j takes part when bit j is set.
  input  logic [Channels-1:0]    avail_i,
  /// The winner's channel (meaningful when some entry is available).
  output logic [ChanBits-1:0]    chan_o
);

  localparam int Leaves = 1 << $clog2(Channels);
  localparam int IdxBits = $clog2(Leaves) > 0 ? $clog2(Leaves) : 1;

  always_comb begin
    logic [Leaves*17-1:0] key;
    logic [Leaves*IdxBits-1:0] idx;
    logic [Leaves-1:0] avail;
    logic right;
    key   = '0;
    idx   = '0;
    avail = '0;
    for (int j = 0; j < Channels; j++) begin
      key[j*17 +: 17] = key_i[j*17 +: 17];
      avail[j]        = avail_i[j];
    end
    for (int j = 0; j < Leaves; j++) idx[j*IdxBits +: IdxBits] = IdxBits'(j);
    for (int w = Leaves; w > 1; w = w / 2) begin
      for (int p = 0; p < w / 2; p++) begin
        if (MinSide) begin
          right = avail[2*p+1] && (!avail[2*p]
              || key[(2*p+1)*17 +: 17] <= key[2*p*17 +: 17]);
        end else begin
          right = avail[2*p+1] && (!avail[2*p]
              || key[(2*p+1)*17 +: 17] > key[2*p*17 +: 17]);
        end
        key[p*17 +: 17]          = right ? key[(2*p+1)*17 +: 17] : key[2*p*17 +: 17];
        idx[p*IdxBits +: IdxBits] = right ? idx[(2*p+1)*IdxBits +: IdxBits]
                                         : idx[2*p*IdxBits +: IdxBits];
        avail[p]                 = avail[2*p] || avail[2*p+1];
      end
    end
    chan_o = ChanBits'(idx[0 +: IdxBits]);
  end

endmodule

`default_nettype wire
