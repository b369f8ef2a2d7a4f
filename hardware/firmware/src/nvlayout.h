/* Where things live in the ATmega2560's 4 KB EEPROM: the firmware's non-volatile memory. The emulator harness
 * writes the pairing key and the timing profile here, as a pairing jig would on a real board (ISP or avrdude -U
 * eeprom:w:...). Numbers are little-endian (the AVR's own order). */
#ifndef NVLAYOUT_H
#define NVLAYOUT_H

#define NV_MAGIC 0x000 /* u32 "CRD1": the layout below is valid */
#define NV_MAGIC_VALUE 0x31445243UL
#define NV_KEY 0x010 /* pairing key, 32 bytes */
#define NV_CFG 0x030 /* timing profile: hb_ms, busy_ms, feed_us, sel_us, read_ms, land_ms (u16 each) */
#define NV_BOOTS 0x040 /* u32 boot counter */
#define NV_SEED 0x044 /* 32 bytes: random seed, renewed at every boot (forward secret) */
#define NV_FAULT 0x070 /* u8 last fault, u32 its command */
#define NV_DECK 0x078 /* u8 verified, u8 base (cards the deck check left in the hopper), u8 expected[8] */
#define NV_PLAN 0x090 /* u32 plan_cmd, u8 active, u8 is_file, u8 cursor, u8 remaining[5] */
#define NV_FILEMAP 0x0A0 /* u8[54]: pocket of each card in a deal file (0xFF: none) */
#define NV_INFLIGHT 0x0E0 /* u8 flag, u8 card, u8 dest: a card released from the bay, not yet confirmed */
#define NV_JOURNAL_N 0x0F0 /* u8: entries in the landing journal */
#define NV_JOURNAL 0x100 /* 128 x (u8 card, u8 where): every card placed since the deck was loaded, in order */
#define NV_WINDOW_HEAD 0x300 /* u8: next slot of the command window */
#define NV_WINDOW 0x310 /* 255 x 12 bytes: the last 255 command ids executed, with their outcome */
#define NV_WINDOW_SLOTS 255
#define NV_WINDOW_ENTRY 12
#define NV_END 0xF04 /* of 0x1000 */
#endif
