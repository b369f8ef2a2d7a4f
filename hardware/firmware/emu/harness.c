/* The dealing machine around the unchanged firmware: loads build/dealer.elf into simavr's ATmega2560 at 16 MHz,
 * bridges UART0 to a pseudo-terminal (the host opens it as it opens /dev/ttyACM0), and simulates the mechanism
 * on the firmware's pins (src/pins.h): the feed stepper moves the top card of the hopper into the read bay, the
 * bay's optical sensor and thickness sensor see it, the card reader on UART1 answers with its code, the selector
 * and elevator steppers move, the gate drops the card into a pocket (the pocket sensor pulses on INT1), the
 * reject tray or the staging stack, the dump solenoid returns the stack to the hopper; the door, the e-stop and
 * the power are switches. Simulated time is kept in step with the wall clock, so the firmware's timings are real.
 *
 * The physical cards live here, outside the firmware, each with a serial number, so a test can check that none
 * was lost or dealt twice. A power loss stops the emulated MCU, saves its EEPROM, and starts a new one from the
 * ELF with that EEPROM: the cards stay where they physically are.
 *
 * The simulated operator acts when the panel asks: as the LOAD lamp lights they have gathered the pockets and
 * the good cards of the reject tray into the hopper (and taken away what the last deck check refused); as the
 * RESUME lamp lights they have closed the door, put the deck's own rejected cards and any dropped on the floor
 * back into the hopper and taken away foreign and duplicate ones. This mirrors hardware/machine.py's operator.
 *
 * Control: one command a line on stdin, one answer a line on stdout (see usage()). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <avr_eeprom.h>
#include <avr_extint.h>
#include <avr_ioport.h>
#include <avr_uart.h>
#include <sim_avr.h>
#include <sim_elf.h>
#include <sim_irq.h>

#include "../src/nvlayout.h"
#include "../src/pins.h"

/* Answers go to the control channel; simavr's own chatter (it prints to stdout) goes to stderr. */
static FILE *ctl;
#define printf(...) fprintf(ctl, __VA_ARGS__)

#define FREQ 16000000UL
#define FEED_TRAVEL 40 /* steps from the hopper to the bay */
#define MAXC 256

typedef struct {
    int serial;
    int face;
    int foreign;
} card_t;

typedef struct {
    card_t c[MAXC];
    int n;
} pile_t;

static pile_t hopper, pockets[5], reject, floor_, removed, staging, bay;
static int check_refused[4096];
static int feed_pos, sel_pos, elev_pos, door, estop, serials;
static int deck_faces[64];
static int jam_armed, double_armed, unread_armed, bounce_armed, power_armed, missing_armed, empty_armed;
static double rate_jam, rate_double, rate_unread, rate_bounce, rate_door, rate_power;
static uint64_t rng_state = 88172645463325252ULL;
static int lamp_load, lamp_resume, feed_en = 1, feed_dir, sel_dir, elev_dir, halted, power_cut_pending;
static int boots, read_ms = 1;
static unsigned faults_struck[8];

static avr_t *avr;
static elf_firmware_t fw;
static const char *eeprom_path;
static avr_irq_t *uart0_in, *uart1_in;
static int uart0_xon = 1;
static int pty_master, pty_slave;
static uint8_t to_avr[65536];
static size_t to_avr_head, to_avr_len;
static uint8_t from_avr[65536];
static size_t from_avr_len;
static uint64_t dropped_to_host;
static struct timespec wall0;
static avr_cycle_count_t cycle0;
/* Timing of frames: the cycle at which a frame's closing 0x00 entered UART0, and the first byte out after it. */
static avr_cycle_count_t last_in_end, lat[64];
static int lat_n, waiting_first_out;
static uint64_t total_cycles_run, slept_cycles; /* all cycles, and those the MCU spent asleep */
static double speed = 1.0; /* simulated seconds per wall-clock second at most (the MCU may be slower) */

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static double rnd01(void) { return (rnd() >> 11) * (1.0 / 9007199254740992.0); }

static void push(pile_t *p, card_t c) { if (p->n < MAXC) p->c[p->n++] = c; }
static void insert(pile_t *p, int i, card_t c)
{
    if (p->n >= MAXC) return;
    if (i < 0) i = 0;
    if (i > p->n) i = p->n;
    memmove(&p->c[i + 1], &p->c[i], (size_t)(p->n - i) * sizeof(card_t));
    p->c[i] = c;
    p->n++;
}
static card_t take(pile_t *p, int i)
{
    card_t c = p->c[i];
    memmove(&p->c[i], &p->c[i + 1], (size_t)(p->n - i - 1) * sizeof(card_t));
    p->n--;
    return c;
}
static card_t new_card(int face, int foreign) { card_t c = {++serials, face, foreign}; return c; }

/* ---- pins ---- */
/* A sensor drives its line whatever the firmware's pull-up says: simavr is told the line's value as an external
 * pull too, or the firmware's next write to that port's PORT register would read as every sensor released. */
static uint8_t ext_mask[32], ext_value[32];
static void drive(char port, int bit, int value)
{
    if (!avr) return;
    int k = port - 'A';
    ext_mask[k] |= (uint8_t)(1u << bit);
    if (value) ext_value[k] |= (uint8_t)(1u << bit);
    else ext_value[k] &= (uint8_t)~(1u << bit);
    avr_ioport_external_t e = {.name = (unsigned long)port, .mask = ext_mask[k], .value = ext_value[k]};
    avr_ioctl(avr, AVR_IOCTL_IOPORT_SET_EXTERNAL(port), &e);
    avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(port), bit), value ? 1 : 0);
}
#define PORTCH_(x) #x[0]
#define PORTCH(x) PORTCH_(x)
static void sensors(void)
{
    drive(PORTCH(BAY_PORT), BAY_BIT, bay.n == 0);
    drive(PORTCH(DOUBLE_PORT), DOUBLE_BIT, bay.n < 2);
    drive(PORTCH(HOPPER_PORT), HOPPER_BIT, hopper.n == 0);
    drive(PORTCH(DOOR_PORT), DOOR_BIT, door);
    drive(PORTCH(SEL_HOME_PORT), SEL_HOME_BIT, sel_pos != 0);
    drive(PORTCH(ESTOP_PORT), ESTOP_BIT, estop);
}

static int in_pockets(int face)
{
    for (int p = 0; p < 5; p++)
        for (int i = 0; i < pockets[p].n; i++)
            if (pockets[p].c[i].face == face) return 1;
    return 0;
}

static void operator_loads(void)
{
    for (int p = 0; p < 5; p++) {
        for (int i = 0; i < pockets[p].n; i++) push(&hopper, pockets[p].c[i]);
        pockets[p].n = 0;
    }
    for (int i = 0; i < reject.n; i++) {
        card_t c = reject.c[i];
        if (c.foreign || check_refused[c.serial % 4096]) push(&removed, c);
        else push(&hopper, c);
    }
    reject.n = 0;
    memset(check_refused, 0, sizeof check_refused);
    door = 0;
}

static void operator_resumes(void)
{
    pile_t back = {0};
    door = 0;
    for (int i = 0; i < reject.n; i++) {
        card_t c = reject.c[i];
        int stranger = c.face >= 0 && c.face < 64 && !deck_faces[c.face];
        if (c.foreign || in_pockets(c.face) || stranger) push(&removed, c);
        else push(&back, c);
    }
    reject.n = 0;
    for (int i = 0; i < floor_.n; i++) push(&back, floor_.c[i]);
    floor_.n = 0;
    for (int i = back.n - 1; i >= 0; i--) insert(&hopper, 0, back.c[i]);
}

static avr_cycle_count_t pocket_pulse_end(avr_t *a, avr_cycle_count_t when, void *param)
{
    (void)a, (void)when, (void)param;
    drive(PORTCH(POCKET_PORT), POCKET_BIT, 1);
    return 0;
}
static avr_cycle_count_t pocket_pulse_start(avr_t *a, avr_cycle_count_t when, void *param)
{
    (void)when, (void)param;
    drive(PORTCH(POCKET_PORT), POCKET_BIT, 0);
    avr_cycle_timer_register_usec(a, 500, pocket_pulse_end, NULL);
    return 0;
}

/* The start of a card's feed: per-card faults strike here, as in hardware/machine.py. */
static void card_starts(void)
{
    if (rate_door > 0 && rnd01() < rate_door) door = 1, faults_struck[4]++;
    if (power_armed || (rate_power > 0 && rnd01() < rate_power)) {
        power_armed = 0;
        power_cut_pending = 1;
        faults_struck[5]++;
    }
    if (missing_armed && hopper.n) { /* a card falls out of the hopper onto the floor */
        missing_armed = 0;
        push(&floor_, take(&hopper, (int)(rnd() % (uint64_t)hopper.n)));
    }
    if (empty_armed) { /* someone lifts the rest of the cards out of the hopper */
        empty_armed = 0;
        for (int i = 0; i < hopper.n; i++) push(&floor_, hopper.c[i]);
        hopper.n = 0;
    }
    if (rate_jam > 0 && rnd01() < rate_jam) jam_armed = 1, faults_struck[0]++;
    if (rate_double > 0 && rnd01() < rate_double) double_armed = 1, faults_struck[1]++;
    if (rate_unread > 0 && rnd01() < rate_unread) unread_armed = 1, faults_struck[2]++;
    if (rate_bounce > 0 && rnd01() < rate_bounce) bounce_armed = 1, faults_struck[3]++;
}

static void on_pin(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    int id = (int)(intptr_t)param;
    switch (id) {
    case 'A' * 8 + FEED_STEP_BIT:
        if (!value || feed_en) break;
        if (feed_dir) {
            if (bay.n || !hopper.n) break;
            if (feed_pos == 0) card_starts();
            if (power_cut_pending || !hopper.n) {
                sensors();
                break;
            }
            if (jam_armed && feed_pos >= FEED_TRAVEL / 2) break; /* stuck in the throat */
            if (++feed_pos >= FEED_TRAVEL) {
                push(&bay, take(&hopper, 0));
                if (double_armed && hopper.n) push(&bay, take(&hopper, 0));
                double_armed = 0;
                feed_pos = 0;
            }
        } else {
            jam_armed = 0;
            if (feed_pos > 0) feed_pos--;
            for (int i = bay.n - 1; i >= 0; i--) insert(&hopper, 0, bay.c[i]);
            bay.n = 0;
        }
        sensors();
        break;
    case 'A' * 8 + FEED_DIR_BIT: feed_dir = (int)value; break;
    case 'A' * 8 + FEED_EN_BIT: feed_en = (int)value; break;
    case 'A' * 8 + SEL_STEP_BIT:
        if (!value) break;
        sel_pos += sel_dir ? 1 : -1;
        if (sel_pos < 0) sel_pos = 0; /* the end stop */
        if (sel_pos > (POS_STAGING + 1) * SEL_STEPS_PER_POSITION) sel_pos = (POS_STAGING + 1) * SEL_STEPS_PER_POSITION;
        sensors();
        break;
    case 'A' * 8 + SEL_DIR_BIT: sel_dir = (int)value; break;
    case 'A' * 8 + ELEV_STEP_BIT:
        if (!value) break;
        elev_pos += elev_dir ? 1 : -1;
        if (elev_pos < 0) elev_pos = 0;
        break;
    case 'A' * 8 + ELEV_DIR_BIT: elev_dir = (int)value; break;
    case 'L' * 8 + GATE_BIT: {
        if (!value || !bay.n) break;
        card_t c = take(&bay, 0);
        int pos = (sel_pos + SEL_STEPS_PER_POSITION / 2) / SEL_STEPS_PER_POSITION;
        if (pos < 5) {
            if (bounce_armed) {
                bounce_armed = 0;
                push(&reject, c);
            } else {
                push(&pockets[pos], c);
                avr_cycle_timer_register_usec(avr, 1000, pocket_pulse_start, NULL);
            }
        } else if (pos == POS_REJECT) {
            push(&reject, c);
            if (lamp_load) check_refused[c.serial % 4096] = 1;
        } else {
            insert(&staging, elev_pos / ELEV_STEPS_PER_SLOT, c);
        }
        sensors();
        break;
    }
    case 'L' * 8 + DUMP_BIT:
        if (!value) break;
        for (int i = staging.n - 1; i >= 0; i--) insert(&hopper, 0, staging.c[i]);
        staging.n = 0;
        sensors();
        break;
    case 'L' * 8 + LAMP_LOAD_BIT:
        if (value && !lamp_load) operator_loads(), sensors();
        lamp_load = (int)value;
        break;
    case 'L' * 8 + LAMP_RESUME_BIT:
        if (value && !lamp_resume) operator_resumes(), sensors();
        lamp_resume = (int)value;
        break;
    }
}

/* ---- the card reader module on UART1 ---- */
static avr_cycle_count_t reader_answer(avr_t *a, avr_cycle_count_t when, void *param)
{
    (void)a, (void)when, (void)param;
    uint8_t face = 0xFE, back = 0;
    if (bay.n) {
        face = (uint8_t)bay.c[0].face;
        back = (uint8_t)bay.c[0].foreign;
        if (unread_armed) unread_armed = 0, face = 0xFF;
    }
    uint8_t msg[4] = {0xA5, face, back, (uint8_t)(face ^ back ^ 0x5A)};
    for (int i = 0; i < 4; i++) avr_raise_irq(uart1_in, msg[i]);
    return 0;
}

static void on_reader_byte(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq, (void)param;
    if (value == 'R') avr_cycle_timer_register_usec(avr, (uint32_t)read_ms * 1000u, reader_answer, NULL);
}

static void on_host_byte(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq, (void)param;
    if (waiting_first_out) {
        lat[lat_n++ % 64] = avr->cycle - last_in_end;
        waiting_first_out = 0;
    }
    if (from_avr_len < sizeof from_avr) from_avr[from_avr_len++] = (uint8_t)value;
}
static void on_xon(struct avr_irq_t *irq, uint32_t value, void *param) { (void)irq, (void)value, (void)param; uart0_xon = 1; }
static void on_xoff(struct avr_irq_t *irq, uint32_t value, void *param) { (void)irq, (void)value, (void)param; uart0_xon = 0; }

/* The emulated core sleeps in idle mode between interrupts; the wall clock is kept by the main loop instead. */
static void no_sleep(avr_t *a, avr_cycle_count_t how_long) { (void)a, slept_cycles += how_long + 1; }

/* ---- EEPROM ---- */
static void eeprom_save(void)
{
    if (!avr) return;
    avr_eeprom_desc_t d = {.ee = NULL, .offset = 0, .size = 4096};
    avr_ioctl(avr, AVR_IOCTL_EEPROM_GET, &d); /* simavr returns -1 even when it succeeds: d.ee tells */
    if (!d.ee) return;
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", eeprom_path);
    FILE *f = fopen(tmp, "wb");
    if (!f) return;
    fwrite(d.ee, 1, 4096, f);
    fclose(f);
    rename(tmp, eeprom_path);
}

static int eeprom_load(uint8_t *ee)
{
    FILE *f = fopen(eeprom_path, "rb");
    if (!f) return 0;
    size_t n = fread(ee, 1, 4096, f);
    fclose(f);
    return n == 4096;
}

static void power_on(void)
{
    avr = avr_make_mcu_by_name("atmega2560");
    if (!avr) { fprintf(stderr, "simavr has no atmega2560\n"); exit(2); }
    avr_init(avr);
    avr->frequency = FREQ;
    avr_load_firmware(avr, &fw);
    avr->frequency = FREQ;
    avr->sleep = no_sleep;
    avr->log = LOG_ERROR;
    uint8_t ee[4096];
    if (eeprom_load(ee)) {
        avr_eeprom_desc_t d = {.ee = ee, .offset = 0, .size = 4096};
        avr_ioctl(avr, AVR_IOCTL_EEPROM_SET, &d);
    }
    static const struct { char port; int bit; } outs[] = {
        {'A', FEED_STEP_BIT}, {'A', FEED_DIR_BIT}, {'A', FEED_EN_BIT}, {'A', SEL_STEP_BIT}, {'A', SEL_DIR_BIT},
        {'A', ELEV_STEP_BIT}, {'A', ELEV_DIR_BIT}, {'L', GATE_BIT}, {'L', DUMP_BIT}, {'L', LAMP_LOAD_BIT},
        {'L', LAMP_RESUME_BIT}};
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++)
        avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(outs[i].port), outs[i].bit), on_pin,
                                (void *)(intptr_t)(outs[i].port * 8 + outs[i].bit));
    uart0_in = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    uart1_in = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('1'), UART_IRQ_INPUT);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT), on_host_byte, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON), on_xon, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF), on_xoff, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('1'), UART_IRQ_OUTPUT), on_reader_byte, NULL);
    /* Stop simavr printing each UART byte on the console. */
    /* ... and from sleeping 1 us on each poll of a UART's status register, which would break the clock. */
    uint32_t f = 0;
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &f);
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('1'), &f);
    /* simavr polls every external-interrupt pin configured for a low level (the reset default) on a cycle timer,
     * which keeps a sleeping MCU from sleeping in the emulator (a third of its time went there): the firmware
     * uses only INT1, on an edge. */
    for (uint8_t i = 0; i < 8; i++) avr_extint_set_strict_lvl_trig(avr, i, 0);
    uart0_xon = 1;
    feed_en = 1;
    memset(ext_mask, 0, sizeof ext_mask);
    sensors();
    drive(PORTCH(POCKET_PORT), POCKET_BIT, 1);
    clock_gettime(CLOCK_MONOTONIC, &wall0);
    cycle0 = avr->cycle;
    boots++;
}

static void power_off(void)
{
    eeprom_save();
    avr_terminate(avr);
    free(avr);
    avr = NULL;
    to_avr_len = 0; /* bytes on the wire while the power is off reach nobody */
    waiting_first_out = 0;
}

/* ---- control ---- */
static void pile_json(const pile_t *p)
{
    printf("[");
    for (int i = 0; i < p->n; i++) printf("%s[%d,%d,%d]", i ? "," : "", p->c[i].serial, p->c[i].face, p->c[i].foreign);
    printf("]");
}

static void usage(void)
{
    fprintf(stderr,
            "usage: dealer-emu --elf dealer.elf --eeprom FILE --key HEX [--profile fast|real] [--speed X] [--seed N] [--deck b,b,...]\n"
            "stdin: state | inject KIND | rates J D U B DOOR POWER | door 0|1 | estop 0|1 | power_cut | halt |\n"
            "       hopper_pop I | hopper_insert I SERIAL FACE FOREIGN | read_ms N | latency | cycles | quit\n");
}

static void command(char *line)
{
    char cmd[32] = "", arg[64] = "";
    int n = sscanf(line, "%31s %63s", cmd, arg);
    if (n < 1) return;
    if (!strcmp(cmd, "state")) {
        printf("{\"hopper\":");
        pile_json(&hopper);
        printf(",\"pockets\":[");
        for (int p = 0; p < 5; p++) { if (p) printf(","); pile_json(&pockets[p]); }
        printf("],\"reject\":");
        pile_json(&reject);
        printf(",\"floor\":");
        pile_json(&floor_);
        printf(",\"removed\":");
        pile_json(&removed);
        printf(",\"staging\":");
        pile_json(&staging);
        printf(",\"bay\":");
        pile_json(&bay);
        printf(",\"door\":%d,\"boots\":%d,\"cycle\":%llu,\"dropped\":%llu,\"faults\":[%u,%u,%u,%u,%u,%u]}\n", door, boots,
               (unsigned long long)total_cycles_run, (unsigned long long)dropped_to_host, faults_struck[0], faults_struck[1],
               faults_struck[2], faults_struck[3], faults_struck[4], faults_struck[5]);
    } else if (!strcmp(cmd, "inject")) {
        if (!strcmp(arg, "jam")) jam_armed = 1;
        else if (!strcmp(arg, "double_feed")) double_armed = 1;
        else if (!strcmp(arg, "unreadable")) unread_armed = 1;
        else if (!strcmp(arg, "pocket_count")) bounce_armed = 1;
        else if (!strcmp(arg, "door_open")) door = 1;
        else if (!strcmp(arg, "power_lost")) power_armed = 1;
        else if (!strcmp(arg, "missing")) missing_armed = 1;
        else if (!strcmp(arg, "hopper_empty")) empty_armed = 1;
        else if (!strcmp(arg, "foreign")) insert(&hopper, 0, new_card((int)(rnd() % 54), 1));
        else if (!strcmp(arg, "duplicate")) {
            int total = hopper.n, pick;
            for (int p = 0; p < 5; p++) total += pockets[p].n;
            pick = total ? (int)(rnd() % (uint64_t)total) : 0;
            int face = 0;
            if (pick < hopper.n) face = hopper.c[pick].face;
            else { pick -= hopper.n; for (int p = 0; p < 5; p++) { if (pick < pockets[p].n) { face = pockets[p].c[pick].face; break; } pick -= pockets[p].n; } }
            insert(&hopper, 0, new_card(face, 0));
        } else if (!strcmp(arg, "extra")) {
            for (int f = 0; f < 54; f++) if (!deck_faces[f]) { insert(&hopper, 0, new_card(f, 0)); break; }
        } else { printf("{\"error\":\"unknown fault %s\"}\n", arg); return; }
        sensors();
        printf("{\"ok\":true}\n");
    } else if (!strcmp(cmd, "rates")) {
        sscanf(line, "%*s %lf %lf %lf %lf %lf %lf", &rate_jam, &rate_double, &rate_unread, &rate_bounce, &rate_door, &rate_power);
        printf("{\"ok\":true}\n");
    } else if (!strcmp(cmd, "door")) { door = atoi(arg); sensors(); printf("{\"ok\":true}\n"); }
    else if (!strcmp(cmd, "estop")) { estop = atoi(arg); sensors(); printf("{\"ok\":true}\n"); }
    else if (!strcmp(cmd, "power_cut")) { power_cut_pending = 1; printf("{\"ok\":true}\n"); }
    else if (!strcmp(cmd, "halt")) { halted = 1; printf("{\"ok\":true}\n"); }
    else if (!strcmp(cmd, "read_ms")) { read_ms = atoi(arg); printf("{\"ok\":true}\n"); }
    else if (!strcmp(cmd, "hopper_pop")) {
        int i = atoi(arg);
        if (i < 0) i += hopper.n;
        if (i < 0 || i >= hopper.n) { printf("{\"error\":\"no card %d in the hopper\"}\n", i); return; }
        card_t c = take(&hopper, i);
        sensors();
        printf("[%d,%d,%d]\n", c.serial, c.face, c.foreign);
    } else if (!strcmp(cmd, "hopper_insert")) {
        int i, s, f, fo;
        if (sscanf(line, "%*s %d %d %d %d", &i, &s, &f, &fo) != 4) { printf("{\"error\":\"hopper_insert I SERIAL FACE FOREIGN\"}\n"); return; }
        card_t c = {s, f, fo};
        insert(&hopper, i < 0 ? hopper.n + 1 + i : i, c);
        sensors();
        printf("{\"ok\":true}\n");
    } else if (!strcmp(cmd, "latency")) {
        printf("[");
        int k = lat_n < 64 ? lat_n : 64;
        for (int i = 0; i < k; i++) printf("%s%llu", i ? "," : "", (unsigned long long)lat[i]);
        printf("]\n");
        lat_n = 0;
    } else if (!strcmp(cmd, "peek")) {
        unsigned a = 0, n = 1;
        sscanf(line, "%*s %x %u", &a, &n);
        for (unsigned i = 0; avr && i < n && a + i < 0x2200; i++) printf("%02x", avr->data[a + i]);
        printf("\n");
    } else if (!strcmp(cmd, "pc")) {
        printf("%x %d\n", avr ? avr->pc : 0, avr ? avr->state : -1);
    } else if (!strcmp(cmd, "cycles")) {
        printf("%llu\n", (unsigned long long)(avr ? avr->cycle : 0));
    } else if (!strcmp(cmd, "counters")) {
        printf("{\"cycles\":%llu,\"busy\":%llu,\"hz\":%lu}\n", (unsigned long long)total_cycles_run,
               (unsigned long long)(total_cycles_run - slept_cycles), FREQ);
    } else if (!strcmp(cmd, "quit")) {
        eeprom_save();
        printf("{\"ok\":true}\n");
        fflush(ctl);
        exit(0);
    } else {
        printf("{\"error\":\"unknown command %s\"}\n", cmd);
    }
}

static void write_new_eeprom(const char *key_hex, int fast)
{
    uint8_t ee[4096];
    if (eeprom_load(ee)) return; /* an EEPROM that exists is the machine's memory: kept as it is */
    memset(ee, 0xFF, sizeof ee);
    uint32_t magic = NV_MAGIC_VALUE;
    memcpy(ee + NV_MAGIC, &magic, 4);
    for (int i = 0; i < 32; i++) { unsigned v = 0; sscanf(key_hex + 2 * i, "%2x", &v); ee[NV_KEY + i] = (uint8_t)v; }
    /* heartbeat, busy, feed step, selector step (us), reader timeout, landing timeout (ms) */
    uint16_t real[6] = {1000, 250, 7500, 2000, 200, 100}, quick[6] = {250, 100, 100, 40, 40, 20};
    memcpy(ee + NV_CFG, fast ? quick : real, sizeof real);
    memset(ee + NV_BOOTS, 0, 4);
    FILE *r = fopen("/dev/urandom", "rb");
    if (!r || fread(ee + NV_SEED, 1, 32, r) != 32) { fprintf(stderr, "no /dev/urandom\n"); exit(2); }
    fclose(r);
    FILE *f = fopen(eeprom_path, "wb");
    if (!f) { perror(eeprom_path); exit(2); }
    fwrite(ee, 1, sizeof ee, f);
    fclose(f);
}

int main(int argc, char **argv)
{
    const char *elf = NULL, *key = NULL, *deck = NULL;
    int fast = 0;
    unsigned long long seed = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--elf") && i + 1 < argc) elf = argv[++i];
        else if (!strcmp(argv[i], "--eeprom") && i + 1 < argc) eeprom_path = argv[++i];
        else if (!strcmp(argv[i], "--key") && i + 1 < argc) key = argv[++i];
        else if (!strcmp(argv[i], "--profile") && i + 1 < argc) fast = !strcmp(argv[++i], "fast");
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--deck") && i + 1 < argc) deck = argv[++i];
        else if (!strcmp(argv[i], "--speed") && i + 1 < argc) speed = atof(argv[++i]);
        else { usage(); return 2; }
    }
    if (!elf || !eeprom_path || !key || strlen(key) != 64) { usage(); return 2; }
    rng_state ^= seed * 0x9E3779B97F4A7C15ULL;
    if (!rng_state) rng_state = 1;
    for (int i = 0; i < 10; i++) rnd();
    ctl = fdopen(dup(1), "w");
    dup2(2, 1);
    if (elf_read_firmware(elf, &fw)) { fprintf(stderr, "cannot read %s\n", elf); return 2; }
    write_new_eeprom(key, fast);
    /* The deck in the hopper, in a random order (the seed's). */
    if (deck) {
        char *d = strdup(deck), *save = NULL;
        for (char *t = strtok_r(d, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            int f = atoi(t);
            if (f >= 0 && f < 54) { push(&hopper, new_card(f, 0)); deck_faces[f] = 1; }
        }
        free(d);
    } else {
        for (int f = 0; f < 54; f++) push(&hopper, new_card(f, 0)), deck_faces[f] = 1;
    }
    for (int i = hopper.n - 1; i > 0; i--) {
        int j = (int)(rnd() % (uint64_t)(i + 1));
        card_t t = hopper.c[i];
        hopper.c[i] = hopper.c[j];
        hopper.c[j] = t;
    }
    if (openpty(&pty_master, &pty_slave, NULL, NULL, NULL)) { perror("openpty"); return 2; }
    struct termios t;
    tcgetattr(pty_slave, &t);
    cfmakeraw(&t);
    tcsetattr(pty_slave, TCSANOW, &t);
    tcgetattr(pty_master, &t);
    cfmakeraw(&t);
    tcsetattr(pty_master, TCSANOW, &t);
    fcntl(pty_master, F_SETFL, fcntl(pty_master, F_GETFL) | O_NONBLOCK);
    fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
    power_on();
    printf("{\"pty\":\"%s\"}\n", ttyname(pty_slave));
    fflush(ctl);

    static char line[512];
    size_t line_n = 0;
    for (;;) {
        /* Run a slice of the MCU, then serve the outside world. */
        if (avr && !halted) {
            avr_cycle_count_t start = avr->cycle;
            while (avr->cycle - start < 2000) {
                if (uart0_xon && to_avr_len) {
                    uint8_t b = to_avr[to_avr_head];
                    to_avr_head = (to_avr_head + 1) % sizeof to_avr;
                    to_avr_len--;
                    avr_raise_irq(uart0_in, b);
                    if (b == 0) last_in_end = avr->cycle, waiting_first_out = 1;
                }
                int st = avr_run(avr);
                if (st == cpu_Done || st == cpu_Crashed) {
                    fprintf(stderr, "the MCU stopped (state %d)\n", st);
                    halted = 1;
                    break;
                }
                if (power_cut_pending) break;
            }
            total_cycles_run += avr->cycle - start;
        }
        if (power_cut_pending) {
            power_cut_pending = 0;
            power_off();
            power_on();
        }
        if (from_avr_len) {
            ssize_t k = write(pty_master, from_avr, from_avr_len);
            if (k < 0) k = 0; /* nobody drains the line: the bytes are lost, as on a wire */
            dropped_to_host += from_avr_len - (size_t)k;
            from_avr_len = 0;
        }
        struct pollfd pf[2] = {{pty_master, POLLIN, 0}, {0, POLLIN, 0}};
        /* Keep simulated time with the wall clock: sleep while the MCU is ahead (waking for input). */
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double wall = speed * ((double)(now.tv_sec - wall0.tv_sec) + (now.tv_nsec - wall0.tv_nsec) / 1e9);
        double sim = avr ? (double)(avr->cycle - cycle0) / FREQ : wall;
        int wait_ms = halted ? 50 : (sim > wall + 0.001 ? (int)((sim - wall) * 1000 / speed) : 0);
        if (poll(pf, 2, wait_ms) > 0) {
            if (pf[0].revents & POLLIN) {
                uint8_t buf[4096];
                ssize_t k = read(pty_master, buf, sizeof buf);
                for (ssize_t i = 0; i < k && to_avr_len < sizeof to_avr; i++) {
                    to_avr[(to_avr_head + to_avr_len) % sizeof to_avr] = buf[i];
                    to_avr_len++;
                }
            }
            if (pf[1].revents & (POLLIN | POLLHUP)) {
                char buf[512];
                ssize_t k = read(0, buf, sizeof buf);
                if (k == 0) { eeprom_save(); return 0; } /* our owner went away */
                for (ssize_t i = 0; i < k; i++) {
                    if (buf[i] == '\n') {
                        line[line_n] = 0;
                        command(line);
                        fflush(ctl);
                        line_n = 0;
                    } else if (line_n < sizeof line - 1) {
                        line[line_n++] = buf[i];
                    }
                }
            }
        }
        /* If the MCU fell behind the wall clock (a slow or busy machine), it runs on from where it is. */
        if (avr && sim < wall - 0.5) {
            wall0 = now;
            cycle0 = avr->cycle;
        }
    }
}
