/* Every pin of the dealing machine on an Arduino Mega 2560 (ATmega2560 at 16 MHz). The emulator harness
 * (emu/harness.c) simulates the mechanism on exactly these pins; hardware/README.md has the wiring table.
 *
 * Each pin is named by its port and bit (PORTx/PINx/DDRx register, bit); the Arduino pin number is in the
 * comment. Inputs use the internal pull-up; "active low" means the sensor pulls the line to ground. */
#ifndef PINS_H
#define PINS_H

/* UART0 (pins 0/1, through the board's USB bridge): the host link, 115200 8N1.
 * UART1 (pins 19 RX1 / 18 TX1): the card reader module (a camera that reports one card code on request). */
#define HOST_BAUD 115200UL
#define READER_BAUD 38400UL

/* Feed roller stepper driver (A4988/DRV8825): pushes the top card of the hopper into the read bay. */
#define FEED_STEP_PORT A
#define FEED_STEP_BIT 0 /* D22 */
#define FEED_DIR_PORT A
#define FEED_DIR_BIT 1 /* D23: high = towards the bay, low = back into the hopper */
#define FEED_EN_PORT A
#define FEED_EN_BIT 2 /* D24: active low */

/* Pocket selector stepper: turns the chute below the read bay to a pocket, the reject tray or the staging tray. */
#define SEL_STEP_PORT A
#define SEL_STEP_BIT 3 /* D25 */
#define SEL_DIR_PORT A
#define SEL_DIR_BIT 4 /* D26: high = towards higher positions */
#define SEL_EN_PORT A
#define SEL_EN_BIT 5 /* D27: active low */

/* Shuffle elevator stepper: sets the height at which a card enters the staging stack. */
#define ELEV_STEP_PORT A
#define ELEV_STEP_BIT 6 /* D28 */
#define ELEV_DIR_PORT A
#define ELEV_DIR_BIT 7 /* D29: high = up */
#define ELEV_EN_PORT C
#define ELEV_EN_BIT 7 /* D30: active low */

/* Sensors (inputs with pull-up). */
#define BAY_PORT C
#define BAY_BIT 1 /* D36: optical card sensor of the read bay, active low (a card in the bay) */
#define DOUBLE_PORT C
#define DOUBLE_BIT 2 /* D35: thickness sensor of the bay, active low (two cards) */
#define HOPPER_PORT C
#define HOPPER_BIT 3 /* D34: optical hopper sensor, active low (cards in the hopper) */
#define POCKET_PORT D
#define POCKET_BIT 1 /* D20 (INT1): optical sensor at the chute's exit, a low pulse as a card lands in a pocket
                      * (on an interrupt pin: the pulse is counted even while a frame is being signed) */
#define DOOR_PORT C
#define DOOR_BIT 5 /* D32: door switch, closed pulls low; high = open */
#define SEL_HOME_PORT C
#define SEL_HOME_BIT 0 /* D37: selector home switch, active low at position 0 */
#define ESTOP_PORT D
#define ESTOP_BIT 0 /* D21: emergency stop button, normally closed to ground; high = pressed (or wire cut) */

/* Actuators and the operator panel (outputs). */
#define GATE_PORT L
#define GATE_BIT 0 /* D49: bay gate solenoid: a pulse drops the card in the bay down the chute */
#define DUMP_PORT L
#define DUMP_BIT 1 /* D48: staging tray dump solenoid: a pulse returns the staging stack to the hopper */
#define LAMP_FAULT_PORT L
#define LAMP_FAULT_BIT 2 /* D47: a fault waits for the operator */
#define LAMP_LOAD_PORT L
#define LAMP_LOAD_BIT 3 /* D46: reading the deck that the operator loaded */
#define LAMP_RESUME_PORT L
#define LAMP_RESUME_BIT 4 /* D45: resuming after the operator's fix */
#define LED_PORT B
#define LED_BIT 7 /* D13: the board's LED, on while a command runs */

/* Selector positions (in units of SEL_STEPS_PER_POSITION steps from home). */
#define POS_REJECT 5
#define POS_STAGING 6
#define SEL_STEPS_PER_POSITION 20
/* The feed: the card reaches the bay within FEED_MAX_STEPS, or it jammed. */
#define FEED_MAX_STEPS 80
#define FEED_BACK_STEPS 60
/* The elevator: steps per card of the staging stack. */
#define ELEV_STEPS_PER_SLOT 4
#endif
