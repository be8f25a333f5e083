// SPDX-License-Identifier: Apache-2.0
// The system wrapper's descriptor fetcher (_axi_fetch): reads, checks and queues the
// descriptors of a chain.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "gen/axi_modules.hpp"
#include "gen/block.hpp"
#include "gen/sv.hpp"
#include "model/cycle/axi.hpp"
#include "model/derived.hpp"

namespace oasis::gen::axi_detail {

namespace {

// The fetcher's header widths and its ports.
void fetch_ports(SvModule& m, const Derived& d) {
  const AxiTiming& ax = d.axi;
  const LayerBits lb(d);
  m.header_localparam("AddrBits", ax.addr_bits, "Bits of a bus address.");
  m.header_localparam("DataBits", ax.data_bits, "Bits of a bus beat.");
  m.header_localparam("WideBits", 64, "Bits of a descriptor's address fields.");
  m.header_localparam("CodeBits", 8, "Bits of an error code.");
  m.header_localparam("GroupBits", lb.groups, "Bits of a layer's group count.");
  m.header_localparam("RowsBits", lb.rows, "Bits of a group's row count, 1 .. Lines.");
  m.header_localparam("OutBeatsBits", lb.out_beats, "Bits of a layer's count of output beats.");
  m.header_localparam("StrideBits", 32, "Bits of a group stride.");
  m.header_localparam("HalfBits", d.storage.width(), "Bits of a binary16 value.");
  m.header_localparam("TagBits", 32, "Bits of a layer's tag.");
  m.header_localparam("LenBits", 8, "Bits of AxLEN.");
  m.ports(
      kClock +
      std::vector<Port>{
          {"input", 0, "start_i", "Run the chain at desc_addr_i (no chain runs)."},
          {"input", 0, "desc_addr_i", "The first descriptor's address.", "WideBits"},
          {"input", 0, "abort_i", "A read or write was refused: stop before the next layer."},
          {"output", 0, "ar_req_o", "A descriptor's read is wanted."},
          {"output", 0, "ar_addr_o", "Its address.", "AddrBits"},
          {"output", 0, "ar_len_o", "Its AxLEN: the descriptor's beats less one.", "LenBits"},
          {"input", 0, "ar_grant_i", "The read is issued."},
          {"input", 0, "r_valid_i", "A beat of the descriptor's read arrives."},
          {"input", 0, "r_data_i", "Its data.", "DataBits"},
          {"input", 0, "r_err_i", "It was answered with SLVERR or DECERR."},
          {"output", 0, "push_o", "A checked layer goes to the queues this cycle."},
          {"input", 0, "push_ready_i", "Every queue has room."},
          {"output", 0, "lay_desc_o", "The layer's descriptor address.", "WideBits"},
          {"output", 0, "lay_tables_o", "Its tables are loaded first (flag tables)."},
          {"output", 0, "lay_tables_addr_o", "Its tables' address.", "AddrBits"},
          {"output", 0, "lay_token_addr_o", "Its token's address.", "AddrBits"},
          {"output", 0, "lay_weights_addr_o", "Its first weight record's address.", "AddrBits"},
          {"output", 0, "lay_output_addr_o", "Its outputs' address.", "AddrBits"},
          {"output", 0, "lay_stride_o", "Bytes from one weight record to the next.", "StrideBits"},
          {"output", 0, "lay_groups_o", "Its groups: ceil(N / Lines).", "GroupBits"},
          {"output", 0, "lay_last_rows_o", "Rows of its last group.", "RowsBits"},
          {"output", 0, "lay_out_beats_o", "Bus beats of its outputs: ceil(2 N / bus bytes).",
           "OutBeatsBits"},
          {"output", 0, "lay_scale_o", "The token's scale s_a, binary16.", "HalfBits"},
          {"output", 0, "lay_tag_o", "Its tag.", "TagBits"},
          {"output", 0, "idle_o", "Nothing fetched, checked or waiting for the queues."},
          {"output", 0, "error_o", "This start's chain stopped at a descriptor."},
          {"output", 0, "error_code_o", "Why (regmap.json error_codes).", "CodeBits"},
          {"output", 0, "error_desc_o", "The descriptor's address.", "WideBits"}});
}

// The localparams: the descriptor's layout, the division's widths, the error codes and flags.
void fetch_localparams(SvModule& m, const Config& c, const Derived& d) {
  const AxiLiteMap map = axi_lite_map(c);
  const AxiTiming& ax = d.axi;
  m.localparam("DescBeats", ax.desc_beats, "Bus beats of a descriptor.");
  m.localparam("DescBeatBits", index_width(ax.desc_beats), "Bits of a descriptor's beat.");
  m.localparam("DescBits", ax.desc_bytes * 8, "Bits of a descriptor.");
  m.localparam("RowBits", ax.rows_bits, "Bits of N.");
  m.localparam("StepBits", index_width(ax.rows_bits), "Bits of the division's step.");
  m.localparam("Lines", c.pe_lines, "PE lines P: rows of a group.");
  const int span_bits = ax.rows_bits + 32 + 2;
  m.localparam("SpanBits", span_bits,
               "Bits of the weight records' span: (groups - 1) stride + a record.");
  m.localparam("LoBits", span_bits / 2, "The product's bits added in SSum, the rest in SSumHi.");
  m.localparam("HiBits", span_bits - span_bits / 2, "The product's bits added in SSumHi.");
  m.localparam("SumBits", 66, "Bits of an address plus a buffer's bytes.");
  m.localparam("ChainBits", count_width(ax.chain_limit), "Bits of a descriptor's position.");
  m.localparam("ChainLimit", ax.chain_limit, "Descriptors a chain may hold.");
  m.localparam("Channels", c.channels, "K: the channels a descriptor must give.");
  m.localparam("MaxRows", ax.max_rows, "The largest N.");
  m.localparam("BusBytes", ax.data_bytes, "Bytes of a bus beat: every buffer's alignment.");
  m.localparam("SizeCode", ax.size_code, "log2(BusBytes).");
  m.localparam("RecordBytes", ax.record_bytes, "Bytes of a weight record.");
  m.localparam("TableBytes", axi_table_bytes(c), "Bytes of a layer's tables in memory.");
  m.localparam("TokenBytes", axi_token_bytes(c), "Bytes of a token in memory.");
  m.localparam("DescBytes", ax.desc_bytes, "Bytes of a descriptor, and its alignment.");
  m.localparam("BeatMask", ax.data_bytes - 1, "The address bits below a bus beat.");
  m.localparam("DescMask", ax.desc_bytes - 1, "The address bits below a descriptor.");
  for (const AxiDescField& f : map.descriptor) {
    m.localparam(
        upper_camel(f.name) + "Lsb", 8 * f.offset,
        fmt::format("First bit of the descriptor's field {} ({} bytes).", f.name, f.bytes));
  }
  for (const AxiErrorCode& e : map.errors) {
    m.localparam("Err" + upper_camel(e.name), e.code, "Error code: " + e.meaning + ".");
  }
  int flag_mask = 0;
  for (const AxiField& f : map.flags) {
    m.localparam("Flag" + upper_camel(f.name), f.lsb, "Flag bit: " + f.meaning + ".");
    flag_mask |= 1 << f.lsb;
  }
  m.localparam("FlagMask", flag_mask, "The flags that are not reserved.");
}

// The states, the registers and the descriptor's fields.
void fetch_registers(SvModule& m) {
  m << fill(R"(
  localparam logic [3:0] SIdle  = 4'd0;  // no chain, or its last descriptor handed on
  localparam logic [3:0] SReq   = 4'd1;  // the descriptor's read wanted
  localparam logic [3:0] SData  = 4'd2;  // its beats arriving
  localparam logic [3:0] SPrep  = 4'd3;  // the division set up
  localparam logic [3:0] SDiv   = 4'd4;  // a bit of N a cycle
  localparam logic [3:0] SSum   = 4'd5;  // the product's carry-save halves added: low bits
  localparam logic [3:0] SSumHi = 4'd6;  // and high bits
  localparam logic [3:0] SSpan  = 4'd7;  // the weight records' span registered
  localparam logic [3:0] SFlags = 4'd8;  // the buffers' checks registered
  localparam logic [3:0] SCheck = 4'd9;  // the checks' outcome
  localparam logic [3:0] SPush  = 4'd10;  // waiting for room in the queues
  localparam logic [SumBits-1:0] Top = SumBits'(1) << AddrBits;
  // The buffers whose addresses are checked, each at its place in the lists below.
  localparam int BufTables = 0, BufToken = 1, BufWeights = 2, BufOutput = 3, BufNext = 4;
  localparam int DescBuffers = 5, BufStart = DescBuffers, Buffers = DescBuffers + 1;

  logic [3:0]              state_q, state_d;
  logic [WideBits-1:0]     addr_q, addr_d, err_desc_q, err_desc_d;
  logic [ChainBits-1:0]    count_q, count_d;
  logic [DescBeatBits-1:0] beat_q, beat_d;
  logic [DescBits-1:0]     desc_q;
  logic                    rerr_q, rerr_d, err_q, err_d;
  logic [CodeBits-1:0]     code_q, code_d, code_now;
  logic [StepBits-1:0]     step_q, step_d;
  logic [RowsBits-1:0]     rem_q, rem_d;
  logic [RowsBits:0]       rem_shift;
  logic [RowBits-1:0]      quo_q, quo_d;
  // The accumulator in carry-save form during the division (acc + carry), then its sum.
  logic [SpanBits-1:0]     acc_q, acc_d, carry_q, carry_d, acc_x, acc_y, acc_z;
  logic [LoBits-1:0]       acc_lo;
  logic [HiBits-1:0]       acc_hi;
  logic                    lo_carry_q, lo_carry_d, lo_carry;
  logic [SpanBits-2:0]     acc_major;  // the carries into bits 1 and up
  logic [DescBuffers-1:0]  ok_q, ok_d;  // the descriptor's buffers usable (SFlags)
  logic                    qbit;

  // The descriptor's fields.
  logic [WideBits-1:0]   f_next, f_tables, f_token, f_weights, f_output;
  logic [31:0]           f_channels, f_rows, f_reserved;
  logic [StrideBits-1:0] f_stride;
  logic [HalfBits-1:0]   f_scale, f_flags;
  logic [TagBits-1:0]    f_tag;
  logic                  f_chain, f_load;
  assign f_next     = desc_q[NextLsb +: WideBits];
  assign f_tables   = desc_q[TablesLsb +: WideBits];
  assign f_token    = desc_q[TokenLsb +: WideBits];
  assign f_weights  = desc_q[WeightsLsb +: WideBits];
  assign f_output   = desc_q[OutputLsb +: WideBits];
  assign f_channels = desc_q[ChannelsLsb +: 32];
  assign f_rows     = desc_q[RowsLsb +: 32];
  assign f_stride   = desc_q[GroupStrideLsb +: StrideBits];
  assign f_scale    = desc_q[TokenScaleLsb +: HalfBits];
  assign f_flags    = desc_q[FlagsLsb +: HalfBits];
  assign f_tag      = desc_q[TagLsb +: TagBits];
  assign f_reserved = desc_q[ReservedLsb +: 32];
  assign f_chain    = f_flags[FlagChain];
  assign f_load     = f_flags[FlagTables];
)",
            {});
}

// The weight records' span and the buffers' address checks, and the error code they give.
void fetch_checks(SvModule& m) {
  m << fill(R"(
  // The weight records' span: (groups - 1) stride + a record, groups = quo + (rem != 0); the
  // accumulator holds quo * stride. Less the stride when N is a whole number of groups: plus
  // its complement and one. A record less the stride is worked out in SSum (less_q), the span
  // in SSpan, each in a prefix adder and registered, so that the checks fit a short clock.
  logic [SumBits-1:0] less_q, less_d, less_sum, span_sum, span_d, span_q, out_bytes;
  logic               unused_less_carry, unused_span_carry, unused_sum_carry;
  oasis_add #(
    .Width(SumBits)
  ) u_less (
    .a_i    (rem_q == '0 ? ~(SumBits'(f_stride)) : '1),
    .b_i    (SumBits'(RecordBytes)),
    .carry_i(1'b0),
    .sum_o  (less_sum),
    .carry_o(unused_less_carry)
  );
  oasis_add #(
    .Width(SumBits)
  ) u_span (
    .a_i    (SumBits'(acc_q)),
    .b_i    (less_q),
    .carry_i(1'b1),
    .sum_o  (span_sum),
    .carry_o(unused_span_carry)
  );
  assign out_bytes = SumBits'(f_rows) << 1;

  // An address usable for a buffer of some bytes aligned to its mask + 1: not 0, aligned, and
  // ending at or below the top of the address space.
  logic [Buffers*WideBits-1:0] buf_addr, buf_mask;
  logic [Buffers*SumBits-1:0]  buf_bytes;
  logic [Buffers-1:0]          usable;
  assign buf_addr  = {desc_addr_i, f_next, f_output, f_weights, f_token, f_tables};
  assign buf_mask  = {WideBits'(DescMask), WideBits'(DescMask), WideBits'(BeatMask),
                      WideBits'(BeatMask), WideBits'(BeatMask), WideBits'(BeatMask)};
  assign buf_bytes = {SumBits'(DescBytes), SumBits'(DescBytes), out_bytes, span_q,
                      SumBits'(TokenBytes), SumBits'(TableBytes)};
  for (genvar i = 0; i < Buffers; i++) begin : g_usable
    logic [WideBits-1:0] a;
    logic [SumBits-1:0]  past;
    logic                unused_carry;
    assign a = buf_addr[i*WideBits +: WideBits];
    oasis_add #(
      .Width(SumBits)
    ) u_past (
      .a_i    (SumBits'(a)),
      .b_i    (buf_bytes[i*SumBits +: SumBits]),
      .carry_i(1'b0),
      .sum_o  (past),
      .carry_o(unused_carry)
    );
    assign usable[i] = a != '0 && (a & buf_mask[i*WideBits +: WideBits]) == '0 && past <= Top;
  end

  always_comb begin
    code_now = '0;
    if ((f_flags & ~HalfBits'(FlagMask)) != '0 || f_reserved != '0) begin
      code_now = CodeBits'(ErrReserved);
    end else if (f_channels != 32'(Channels)) begin
      code_now = CodeBits'(ErrChannels);
    end else if (f_rows == '0 || f_rows > 32'(MaxRows)) begin
      code_now = CodeBits'(ErrRows);
    end else if (f_stride < StrideBits'(RecordBytes) ||
                 f_stride[SizeCode-1:0] != '0) begin
      code_now = CodeBits'(ErrStride);
    end else if (f_load && !ok_q[BufTables]) begin
      code_now = CodeBits'(ErrTablesAddr);
    end else if (!ok_q[BufToken]) begin
      code_now = CodeBits'(ErrTokenAddr);
    end else if (!ok_q[BufWeights]) begin
      code_now = CodeBits'(ErrWeightsAddr);
    end else if (!ok_q[BufOutput]) begin
      code_now = CodeBits'(ErrOutputAddr);
    end else if (f_chain && !ok_q[BufNext]) begin
      code_now = CodeBits'(ErrNextAddr);
    end else if (f_chain && count_q >= ChainBits'(ChainLimit)) begin
      code_now = CodeBits'(ErrChainLimit);
    end
  end
)",
            {});
}

// The division of N by the lines and the carry-save accumulation of the span.
void fetch_division(SvModule& m) {
  m << fill(R"(
  // Restoring division of N by Lines, a bit a cycle from the top, and the quotient's bits
  // times the stride added into the accumulator as they come (Horner).
  assign rem_shift = {rem_q, quo_q[RowBits-1]};
  assign qbit      = rem_shift >= (RowsBits+1)'(Lines);
  // A step doubles acc + carry and adds the stride for a quotient bit of one: a carry-save
  // step, no carry chain; SSum adds the two halves once the division is done.
  assign acc_x = {acc_q[SpanBits-2:0], 1'b0};
  assign acc_y = {carry_q[SpanBits-2:0], 1'b0};
  assign acc_z = qbit ? SpanBits'(f_stride) : '0;
  assign acc_major = acc_x[SpanBits-2:0] & acc_y[SpanBits-2:0] |
                     acc_x[SpanBits-2:0] & acc_z[SpanBits-2:0] |
                     acc_y[SpanBits-2:0] & acc_z[SpanBits-2:0];
  oasis_add #(
    .Width(LoBits)
  ) u_acc_lo (
    .a_i    (acc_q[LoBits-1:0]),
    .b_i    (carry_q[LoBits-1:0]),
    .carry_i(1'b0),
    .sum_o  (acc_lo),
    .carry_o(lo_carry)
  );
  oasis_add #(
    .Width(HiBits)
  ) u_acc_hi (
    .a_i    (acc_q[SpanBits-1:LoBits]),
    .b_i    (carry_q[SpanBits-1:LoBits]),
    .carry_i(lo_carry_q),
    .sum_o  (acc_hi),
    .carry_o(unused_sum_carry)
  );
)",
            {});
}

// The state machine, first part: its defaults and the descriptor's read (SIdle .. SPrep).
void fetch_read_states(SvModule& m) {
  m << fill(R"(
  always_comb begin
    state_d    = state_q;
    addr_d     = addr_q;
    count_d    = count_q;
    beat_d     = beat_q;
    rerr_d     = rerr_q;
    err_d      = err_q;
    code_d     = code_q;
    err_desc_d = err_desc_q;
    step_d     = step_q;
    rem_d      = rem_q;
    quo_d      = quo_q;
    acc_d      = acc_q;
    span_d     = span_q;
    less_d     = less_q;
    carry_d    = carry_q;
    lo_carry_d = lo_carry_q;
    ok_d       = ok_q;
    push_o     = 1'b0;
    unique case (state_q)
      SIdle: begin
        if (start_i) begin
          err_d  = 1'b0;
          code_d = '0;
          if (!usable[BufStart]) begin
            err_d      = 1'b1;
            code_d     = CodeBits'(ErrDescAddr);
            err_desc_d = desc_addr_i;
          end else begin
            addr_d  = desc_addr_i;
            count_d = ChainBits'(1);
            state_d = SReq;
          end
        end
      end
      SReq: begin
        if (abort_i) begin
          state_d = SIdle;
        end else if (ar_grant_i) begin
          beat_d  = '0;
          rerr_d  = 1'b0;
          state_d = SData;
        end
      end
      SData: begin
        if (r_valid_i) begin
          rerr_d = rerr_q || r_err_i;
          if (beat_q == DescBeatBits'(DescBeats - 1)) state_d = SPrep;
          else beat_d = beat_q + DescBeatBits'(1);
        end
      end
      SPrep: begin
        if (abort_i) begin
          state_d = SIdle;
        end else if (rerr_q) begin
          err_d      = 1'b1;
          code_d     = CodeBits'(ErrReadResp);
          err_desc_d = addr_q;
          state_d    = SIdle;
        end else begin
          quo_d   = f_rows[RowBits-1:0];
          rem_d   = '0;
          acc_d   = '0;
          carry_d = '0;
          step_d  = '0;
          state_d = SDiv;
        end
      end)",
            {});
}

// The state machine, second part: the division, the sums, the checks, the hand-off (SDiv ..).
void fetch_work_states(SvModule& m) {
  m << fill(R"(
      SDiv: begin
        rem_d  = qbit ? RowsBits'(rem_shift - (RowsBits+1)'(Lines)) : RowsBits'(rem_shift);
        quo_d  = {quo_q[RowBits-2:0], qbit};
        acc_d   = acc_x ^ acc_y ^ acc_z;
        carry_d = {acc_major, 1'b0};
        step_d  = step_q + StepBits'(1);
        if (step_q == StepBits'(RowBits - 1)) state_d = SSum;
      end
      SSum: begin
        acc_d[LoBits-1:0]   = acc_lo;
        carry_d[LoBits-1:0] = '0;
        lo_carry_d          = lo_carry;
        less_d              = less_sum;
        state_d             = SSumHi;
      end
      SSumHi: begin
        acc_d[SpanBits-1:LoBits]   = acc_hi;
        carry_d[SpanBits-1:LoBits] = '0;
        state_d                    = SSpan;
      end
      SSpan: begin
        span_d  = span_sum;
        state_d = SFlags;
      end
      SFlags: begin
        ok_d    = usable[DescBuffers-1:0];
        state_d = SCheck;
      end
      SCheck: begin
        if (abort_i) begin
          state_d = SIdle;
        end else if (code_now != '0) begin
          err_d      = 1'b1;
          code_d     = code_now;
          err_desc_d = addr_q;
          state_d    = SIdle;
        end else begin
          state_d = SPush;
        end
      end
      SPush: begin
        if (abort_i) begin
          state_d = SIdle;
        end else if (push_ready_i) begin
          push_o = 1'b1;
          if (f_chain) begin
            addr_d  = f_next;
            count_d = count_q + ChainBits'(1);
            state_d = SReq;
          end else begin
            state_d = SIdle;
          end
        end
      end
      default: state_d = SIdle;
    endcase
  end
)",
            {});
}

// The registers, the descriptor's beats as they arrive and the outputs.
void fetch_outputs(SvModule& m) {
  m << fill(R"(
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q    <= SIdle;
      addr_q     <= '0;
      count_q    <= '0;
      beat_q     <= '0;
      rerr_q     <= 1'b0;
      err_q      <= 1'b0;
      code_q     <= '0;
      err_desc_q <= '0;
      step_q     <= '0;
      rem_q      <= '0;
      quo_q      <= '0;
      acc_q      <= '0;
      span_q     <= '0;
      less_q     <= '0;
      carry_q    <= '0;
      lo_carry_q <= 1'b0;
      ok_q       <= '0;
    end else begin
      state_q    <= state_d;
      addr_q     <= addr_d;
      count_q    <= count_d;
      beat_q     <= beat_d;
      rerr_q     <= rerr_d;
      err_q      <= err_d;
      code_q     <= code_d;
      err_desc_q <= err_desc_d;
      step_q     <= step_d;
      rem_q      <= rem_d;
      quo_q      <= quo_d;
      acc_q      <= acc_d;
      span_q     <= span_d;
      less_q     <= less_d;
      carry_q    <= carry_d;
      lo_carry_q <= lo_carry_d;
      ok_q       <= ok_d;
    end
  end

  // No reset: the descriptor is read only once all its beats are in.
  for (genvar b = 0; b < DescBeats; b++) begin : g_beat
    always_ff @(posedge clk_i) begin
      if (state_q == SData && r_valid_i && beat_q == DescBeatBits'(b)) begin
        desc_q[b*DataBits +: DataBits] <= r_data_i;
      end
    end
  end

  assign ar_req_o           = state_q == SReq;
  assign ar_addr_o          = addr_q[AddrBits-1:0];
  assign ar_len_o           = LenBits'(DescBeats - 1);
  assign idle_o             = state_q == SIdle;
  assign error_o            = err_q;
  assign error_code_o       = code_q;
  assign error_desc_o       = err_desc_q;
  assign lay_desc_o         = addr_q;
  assign lay_tables_o       = f_load;
  assign lay_tables_addr_o  = f_tables[AddrBits-1:0];
  assign lay_token_addr_o   = f_token[AddrBits-1:0];
  assign lay_weights_addr_o = f_weights[AddrBits-1:0];
  assign lay_output_addr_o  = f_output[AddrBits-1:0];
  assign lay_stride_o       = f_stride;
  assign lay_groups_o       = GroupBits'(quo_q) + GroupBits'(rem_q != '0);
  assign lay_last_rows_o    = rem_q == '0 ? RowsBits'(Lines) : rem_q;
  assign lay_out_beats_o    = OutBeatsBits'((out_bytes + SumBits'(BeatMask)) >> SizeCode);
  assign lay_scale_o        = f_scale;
  assign lay_tag_o          = f_tag;
)",
            {});
}

}  // namespace

SvFile fetch_module(const Config& c, const Derived& d) {
  SvModule m(module_name(c, "axi_fetch"),
             "The wrapper's descriptor fetcher (docs/axi.md, Descriptors): from a start, reads "
             "each descriptor of the chain (one burst of ID 0), works out its groups and the "
             "bytes of its weight records (a restoring division by the lines and a shift-and-add "
             "multiplication, a bit of N a cycle), checks it in the order of docs/axi.md, Errors, "
             "and hands a good one to the queues of the read side, the feed and the write side; "
             "it reads the next one while the layers before it run. A bad descriptor, a read "
             "error or too long a chain stops it with an error code.");
  fetch_ports(m, d);
  fetch_localparams(m, c, d);
  fetch_registers(m);
  fetch_checks(m);
  fetch_division(m);
  fetch_read_states(m);
  fetch_work_states(m);
  fetch_outputs(m);
  m.op("sub", "RowsBits+1", "rem_d");
  m.op("add", "LoBits", "u_acc_lo");
  m.op("add", "HiBits", "u_acc_hi");
  m.op("add", "SumBits", "u_less");
  m.op("add", "SumBits", "u_span");
  m.op("add", "SumBits", "u_past", "Buffers");
  return m.file();
}

}  // namespace oasis::gen::axi_detail
