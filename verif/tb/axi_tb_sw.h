// SPDX-License-Identifier: Apache-2.0
/* The software side of the system wrapper's test (verif/tb/axi_tb.c, docs/axi.md): a C99
 * program that uses only the generated driver header to run layers from memory. The
 * testbench (verif/tb/axi_tb.cpp) gives it the device's register access, which steps the
 * Verilator model, and the host's view of the memory model's bytes. */
#ifndef OASIS_AXI_TB_SW_H
#define OASIS_AXI_TB_SW_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Layers of one chain the program lays out at most. */
#define AXI_SW_MAX_LAYERS 8

typedef struct axi_sw_result axi_sw_result;

typedef struct axi_sw_env {
  void *ctx;
  uint32_t (*read32)(void *ctx, uintptr_t addr);
  void (*write32)(void *ctx, uintptr_t addr, uint32_t value);
  void (*wait_irq)(void *ctx); /* NULL: poll */
  /* Called once the chain is laid out in memory, before it starts. */
  void (*laid_out)(void *ctx, const axi_sw_result *layout);
  uintptr_t lite_base;   /* the AXI4-Lite window's base */
  uint8_t *mem;          /* the host's view of the memory, from bus address mem_addr */
  uint64_t mem_addr;
  uint64_t mem_bytes;
  uint64_t arena_offset; /* the first byte of mem the program lays buffers out from */
} axi_sw_env;

/* A layer on the chain's token: its tables (binary16 words), rows x K weight indices (a byte
 * each, row by row), rows binary16 scales, the bytes its records are apart beyond a record,
 * and a tag. */
typedef struct axi_sw_layer {
  const uint16_t *lut, *act_codebook, *weight_codebook, *boundaries;
  const uint8_t *iw;
  const uint16_t *sw;
  uint32_t rows;
  uint32_t stride_pad;
  uint32_t tag;
} axi_sw_layer;

struct axi_sw_result {
  uint32_t layers;      /* layers laid out */
  uint64_t first_desc;  /* the chain's first descriptor */
  uint64_t desc[AXI_SW_MAX_LAYERS];
  uint64_t output[AXI_SW_MAX_LAYERS]; /* each layer's outputs: 2 rows bytes */
  uint32_t rows[AXI_SW_MAX_LAYERS];
  uint64_t arena_end;   /* the first byte past the buffers laid out (bus address) */
  uint32_t status;      /* STATUS once the chain ended */
  uint32_t layers_done, last_tag;
  uint64_t error_desc;
  uint64_t cycles, weight_bytes, stall_cycles;
};

/* 0 when the device is the generated header's (ID, map version, config hash). */
int axi_sw_check(const axi_sw_env *env);
/* Lays out the token (x^, K binary16 values) and n layers on it as one chain, the first
 * layer's tables through the register window when tables_by_registers and every other
 * layer's by its descriptor; starts the chain, waits for it (the interrupt when wait_irq is
 * set, else polling) and reads the status and counters into res. Returns the status's error
 * code, 0 when the chain ran to its end, or -1 when it could not start it (device not the
 * header's, busy, too many layers, memory too small). */
int axi_sw_run(const axi_sw_env *env, const uint16_t *xhat, uint16_t scale,
               const axi_sw_layer *layers, uint32_t n, int tables_by_registers,
               axi_sw_result *res);
/* Starts the chain at desc_addr (descriptors laid out by the caller), waits for it and reads
 * the status and counters into res; the error code as axi_sw_run's. */
int axi_sw_start(const axi_sw_env *env, uint64_t desc_addr, axi_sw_result *res);

#ifdef __cplusplus
}
#endif

#endif
