#include "hw.h"
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <util/atomic.h>
#include <util/delay.h>

#define RX_SIZE 512 /* one long frame computing (tens of ms) must not overflow it at 115200 baud */
#define TX_SIZE 256

static volatile uint8_t rx_buf[RX_SIZE];
static volatile uint16_t rx_head, rx_tail;
static volatile uint8_t tx_buf[TX_SIZE];
static volatile uint8_t tx_head, tx_tail;
volatile uint16_t host_rx_dropped;
static volatile uint8_t rd_buf[16];
static volatile uint8_t rd_head, rd_tail;
static volatile uint32_t ms;
volatile uint8_t estop_latched;

static volatile uint16_t mv_left, mv_done;
static volatile uint8_t mv_motor, mv_stop_on_bay;

void hw_init(void)
{
    /* Outputs: stepper step/dir/enable, solenoids, lamps, LED. Enables are active low: start disabled. */
    DDRA = 0xFF;
    PORTA = (1 << FEED_EN_BIT) | (1 << SEL_EN_BIT);
    DDRC = (1 << ELEV_EN_BIT);
    PORTC = 0xFF; /* pull-ups on every input; the elevator's enable high: off */
    DDRL |= (1 << GATE_BIT) | (1 << DUMP_BIT) | (1 << LAMP_FAULT_BIT) | (1 << LAMP_LOAD_BIT) | (1 << LAMP_RESUME_BIT);
    DDRB |= (1 << LED_BIT);
    DDRD &= (uint8_t)~((1 << ESTOP_BIT) | (1 << POCKET_BIT));
    PORTD |= (1 << ESTOP_BIT) | (1 << POCKET_BIT);

    /* UART0 115200 and UART1 38400, double speed (U2X) as the Arduino core does. */
    UCSR0A = (1 << U2X0);
    UBRR0 = (uint16_t)(F_CPU / (8 * HOST_BAUD) - 1); /* 16 at 16 MHz: 117647 baud, -2.1 % as every Mega */
    UCSR0B = (1 << RXEN0) | (1 << TXEN0) | (1 << RXCIE0);
    UCSR0C = (1 << UCSZ01) | (1 << UCSZ00);
    UCSR1A = (1 << U2X1);
    UBRR1 = (uint16_t)(F_CPU / (8 * READER_BAUD) - 1);
    UCSR1B = (1 << RXEN1) | (1 << TXEN1) | (1 << RXCIE1);
    UCSR1C = (1 << UCSZ11) | (1 << UCSZ10);

    /* Timer1: 1 ms tick (CTC, /64). */
    TCCR1A = 0;
    TCCR1B = (1 << WGM12) | (1 << CS11) | (1 << CS10);
    OCR1A = (uint16_t)(F_CPU / 64 / 1000 - 1);
    TIMSK1 = (1 << OCIE1A);

    /* Timer3: stepper pulses (CTC, /8: 0.5 us ticks), started by motion_start. */
    TCCR3A = 0;
    TCCR3B = (1 << WGM32);

    /* The pocket sensor on INT1, falling edge: each card landing is counted. (The e-stop is sampled every
     * millisecond by the clock's interrupt: a debounced latch, whatever the main loop is doing.) */
    EICRA = (1 << ISC11);
    EIMSK = (1 << INT1);
    set_sleep_mode(SLEEP_MODE_IDLE);
    sei();
}

ISR(TIMER1_COMPA_vect)
{
    static uint8_t was_pressed;
    ms++;
    uint8_t pressed = estop_pressed();
    if (pressed && !was_pressed) /* the press, once: holding it keeps the machine stopped (stopped() reads the pin) */
        estop_latched = 1;
    was_pressed = pressed;
}

uint32_t millis(void)
{
    uint32_t v;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { v = ms; }
    return v;
}

void hw_sleep(void)
{
    cli();
    if (rx_head == rx_tail) {
        sleep_enable();
        sei();
        sleep_cpu();
        sleep_disable();
    }
    sei();
}

volatile uint8_t pocket_pulses;
ISR(INT1_vect) { pocket_pulses++; }


ISR(USART0_RX_vect)
{
    uint8_t b = UDR0;
    uint16_t next = (uint16_t)((rx_head + 1) % RX_SIZE);
    if (next == rx_tail) {
        host_rx_dropped++;
        return;
    }
    rx_buf[rx_head] = b;
    rx_head = next;
}

int host_getc(void)
{
    int b = -1;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        if (rx_head != rx_tail) {
            b = rx_buf[rx_tail];
            rx_tail = (uint16_t)((rx_tail + 1) % RX_SIZE);
        }
    }
    return b;
}

ISR(USART0_UDRE_vect)
{
    if (tx_head == tx_tail) {
        UCSR0B &= (uint8_t)~(1 << UDRIE0);
        return;
    }
    UDR0 = tx_buf[tx_tail];
    tx_tail = (uint8_t)(tx_tail + 1);
}

void host_putc(uint8_t b)
{
    uint8_t next = (uint8_t)(tx_head + 1);
    while (next == tx_tail) /* the UART drains it: 87 us a byte */
        ;
    tx_buf[tx_head] = b;
    tx_head = next;
    UCSR0B |= (1 << UDRIE0);
}

ISR(USART1_RX_vect)
{
    uint8_t b = UDR1;
    uint8_t next = (uint8_t)((rd_head + 1) & 15);
    if (next != rd_tail) {
        rd_buf[rd_head] = b;
        rd_head = next;
    }
}

void reader_flush(void)
{
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { rd_tail = rd_head; }
}

void reader_putc(uint8_t b)
{
    while (!(UCSR1A & (1 << UDRE1)))
        ;
    UDR1 = b;
}

int reader_getc(void)
{
    int b = -1;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        if (rd_head != rd_tail) {
            b = rd_buf[rd_tail];
            rd_tail = (uint8_t)((rd_tail + 1) & 15);
        }
    }
    return b;
}

ISR(TIMER3_COMPA_vect)
{
    if (mv_left == 0 || (mv_stop_on_bay && bay_card())) {
        mv_left = 0;
        TCCR3B &= (uint8_t)~(1 << CS31);
        return;
    }
    /* A 2 us pulse: the A4988 needs 1 us high. */
    switch (mv_motor) {
    case M_FEED:
        OUT_HI(FEED_STEP);
        _delay_us(2);
        OUT_LO(FEED_STEP);
        break;
    case M_SEL:
        OUT_HI(SEL_STEP);
        _delay_us(2);
        OUT_LO(SEL_STEP);
        break;
    default:
        OUT_HI(ELEV_STEP);
        _delay_us(2);
        OUT_LO(ELEV_STEP);
        break;
    }
    mv_left--;
    mv_done++;
}

void motion_start(enum motor m, uint8_t dir_up, uint16_t steps, uint16_t interval_us, uint8_t stop_on_bay)
{
    motion_halt();
    switch (m) {
    case M_FEED:
        OUT_LO(FEED_EN);
        if (dir_up)
            OUT_HI(FEED_DIR);
        else
            OUT_LO(FEED_DIR);
        break;
    case M_SEL:
        OUT_LO(SEL_EN);
        if (dir_up)
            OUT_HI(SEL_DIR);
        else
            OUT_LO(SEL_DIR);
        break;
    default:
        OUT_LO(ELEV_EN);
        if (dir_up)
            OUT_HI(ELEV_DIR);
        else
            OUT_LO(ELEV_DIR);
        break;
    }
    _delay_us(2); /* direction setup time before the first step */
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        mv_motor = (uint8_t)m;
        mv_left = steps;
        mv_done = 0;
        mv_stop_on_bay = stop_on_bay;
        TCNT3 = 0;
        OCR3A = (uint16_t)(interval_us < 20 ? 40 : interval_us * 2u);
        TIMSK3 = (1 << OCIE3A);
        if (steps)
            TCCR3B |= (1 << CS31);
    }
}

uint8_t motion_busy(void)
{
    uint8_t b;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { b = mv_left != 0; }
    return b;
}

uint16_t motion_done_steps(void)
{
    uint16_t d;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { d = mv_done; }
    return d;
}

void motion_halt(void)
{
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        mv_left = 0;
        TCCR3B &= (uint8_t)~(1 << CS31);
    }
}

uint8_t bay_card(void) { return !IN_HI(BAY); }
uint8_t bay_double(void) { return !IN_HI(DOUBLE); }
uint8_t hopper_has_cards(void) { return !IN_HI(HOPPER); }
uint8_t door_open(void) { return IN_HI(DOOR); }
uint8_t estop_pressed(void) { return IN_HI(ESTOP); }
uint8_t sel_home(void) { return !IN_HI(SEL_HOME); }

void gate_pulse(void)
{
    OUT_HI(GATE);
    _delay_us(50);
    OUT_LO(GATE);
}

void dump_pulse(void)
{
    OUT_HI(DUMP);
    _delay_us(50);
    OUT_LO(DUMP);
}

void lamp(uint8_t which, uint8_t on)
{
    switch (which) {
    case LAMP_FAULT:
        if (on)
            OUT_HI(LAMP_FAULT);
        else
            OUT_LO(LAMP_FAULT);
        break;
    case LAMP_LOAD:
        if (on)
            OUT_HI(LAMP_LOAD);
        else
            OUT_LO(LAMP_LOAD);
        break;
    case LAMP_RESUME:
        if (on)
            OUT_HI(LAMP_RESUME);
        else
            OUT_LO(LAMP_RESUME);
        break;
    default:
        if (on)
            OUT_HI(LED);
        else
            OUT_LO(LED);
        break;
    }
}
