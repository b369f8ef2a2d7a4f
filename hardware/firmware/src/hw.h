/* The board: UARTs, the millisecond clock, stepper motion, sensors, solenoids, lamps. */
#ifndef HW_H
#define HW_H
#include <stdint.h>
#include "pins.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define OUT_HI(n) (CAT(PORT, n##_PORT) |= (uint8_t)(1u << n##_BIT))
#define OUT_LO(n) (CAT(PORT, n##_PORT) &= (uint8_t)~(1u << n##_BIT))
#define IN_HI(n) ((CAT(PIN, n##_PORT) >> n##_BIT) & 1u)

enum motor { M_FEED, M_SEL, M_ELEV };

void hw_init(void);
uint32_t millis(void);
void hw_sleep(void); /* until the next interrupt */

/* Host UART (UART0). */
int host_getc(void); /* -1 if nothing */
void host_putc(uint8_t b);
extern volatile uint16_t host_rx_dropped;

/* Reader UART (UART1). */
void reader_flush(void);
void reader_putc(uint8_t b);
int reader_getc(void);

/* Motion: one motor at a time, stepped by Timer3's interrupt. */
void motion_start(enum motor m, uint8_t dir_up, uint16_t steps, uint16_t interval_us, uint8_t stop_on_bay);
uint8_t motion_busy(void);
uint16_t motion_done_steps(void);
void motion_halt(void);

uint8_t bay_card(void);
uint8_t bay_double(void);
uint8_t hopper_has_cards(void);
uint8_t door_open(void);
uint8_t estop_pressed(void);
uint8_t sel_home(void);
extern volatile uint8_t pocket_pulses; /* cards the pocket sensor saw land */

void gate_pulse(void);
void dump_pulse(void);
void lamp(uint8_t which, uint8_t on);
#define LAMP_FAULT 0
#define LAMP_LOAD 1
#define LAMP_RESUME 2
#define LAMP_BUSY 3

extern volatile uint8_t estop_latched; /* set by the e-stop button's interrupt */
#endif
