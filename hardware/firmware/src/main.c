/* The dealing machine's firmware: protocol v1 of docs/protocol.md on an ATmega2560.
 *
 * One loop, no RTOS. The worker runs one command at a time as plain blocking code; every wait inside it (a motor
 * moving, the reader answering, a card landing) calls service(), which takes frames in (sessions, acks, repeated
 * ids, the emergency stop, which is handled at once and never queued), and sends heartbeats and busy frames. So
 * the link is served while the mechanism works, as the simulated device's three threads do.
 *
 * What survives a power loss is in EEPROM (nvlayout.h): the pairing key, the deck check, the unfinished deal
 * (counts owed at its start plus a journal of every card placed since the deck was loaded, so what is still owed
 * is recomputed, never trusted from a half-written counter), the card in flight between the bay and a pocket,
 * the last fault, and a window of the last 255 command ids with their outcome, so an id is never executed twice.
 * The exact bytes of the last REPLY_RAM replies are also kept in RAM; an older id in the window is answered with
 * its recorded status and detail and the current state report (docs/protocol.md section 3, hardware/README.md). */
#include <avr/eeprom.h>
#include <avr/io.h>
#include <avr/pgmspace.h>
#include <avr/wdt.h>
#include <stdio.h>
#include <string.h>

#include "hw.h"
#include "nvlayout.h"
#include "wire.h"

#define VERSION 2
enum { T_HELLO = 0x01, T_HELLO_REPLY = 0x02, T_COMMAND = 0x10, T_ACK, T_BUSY, T_CARD, T_REPLY, T_STATE, T_HEARTBEAT, T_NOTICE };
enum { OP_PING, OP_STATUS, OP_LOAD, OP_SHUFFLE, OP_DEAL, OP_DEAL_MORE, OP_DEAL_REST, OP_DEAL_FILE, OP_RESUME, OP_ABORT, OP_STOP = 0x0F };
enum {
    F_OK = 0, F_JAM, F_DOUBLE_FEED, F_UNREADABLE, F_DUPLICATE, F_MISSING, F_FOREIGN, F_EXTRA, F_HOPPER_EMPTY,
    F_POCKET_COUNT, F_DOOR_OPEN, F_POWER_LOST, F_EMERGENCY_STOP,
    F_BAD_COMMAND = 0x20, F_NOT_LOADED, F_FAULT_PENDING, F_NOTHING_TO_RESUME, F_CANCELLED
};
enum { N_AUTH_FAILED = 1, N_REPLAYED, N_MALFORMED, N_NO_SESSION };
#define CAPABILITIES 0x1F /* shuffle, deal file, emergency stop, encrypted, resume */
#define N_POCKETS 5
#define N_CARDS 54
#define NO_CARD 0xFF
#define RUNNING 0xFE /* window status of a command that has started and not finished */
/* Where a card of the journal is: a pocket 0..4, or the reject tray for one of these reasons. */
enum { J_REJ_CARD = 5, J_REJ_FOREIGN, J_REJ_UNREAD, J_REJ_BOUNCED, J_CLEARED = 0x80 };
#define JOURNAL_MAX 128
#define QUEUE_MAX 4
#define ARGS_MAX 112 /* a deal file of all 54 cards is 109 bytes */
#define REPLY_RAM 4
#define REPLY_RAM_BYTES 220
#define TX_MAX 1024

/* ---- configuration (EEPROM timing profile) ---- */
static uint16_t cfg_hb = 1000, cfg_busy = 250, cfg_feed_us = 7500, cfg_sel_us = 2000, cfg_read_ms = 200, cfg_land_ms = 100;

/* ---- link ---- */
static hmac_key k_pair, k_hello, k_h2d_mac, k_h2d_enc, k_d2h_mac, k_d2h_enc, k_rng;
static uint8_t rng_pool[32];
static uint32_t rng_ctr, rng_jitter; /* jitter: the arrival times of frames, folded in (cheaply) as they come */
static uint8_t session;
static uint32_t rx_seq, tx_seq, boot_id;
static uint32_t notices[5];
#define ACC_MAX 1040
static uint8_t acc[ACC_MAX];
static uint16_t acc_n;
static uint8_t acc_over;
static uint8_t tx[TX_MAX + 2];
static uint16_t w; /* write position in tx while a payload is built */
static uint32_t frames_bad;

/* ---- commands ---- */
struct qcmd {
    uint32_t id;
    uint8_t op;
    uint16_t alen;
    uint16_t acrc;
    uint8_t args[ARGS_MAX];
};
static struct qcmd queue[QUEUE_MAX];
static uint8_t qn;
static struct qcmd cur;
static uint32_t current_id;
static uint16_t prog_done, prog_total;
static volatile uint8_t stop_flag;
static struct {
    uint32_t id;
    uint16_t len;
    uint8_t data[REPLY_RAM_BYTES];
} rcache[REPLY_RAM];
static uint8_t rcache_next;

/* ---- machine state (mirrors of EEPROM) ---- */
static uint8_t j_card[JOURNAL_MAX], j_where[JOURNAL_MAX], j_n;
static uint8_t verified, base;
static uint8_t expected[8];
static uint8_t plan_active, plan_file, plan_want[N_POCKETS], plan_jstart;
static uint32_t plan_cmd;
static uint8_t filemap[N_CARDS];
static uint8_t last_fault;
static uint32_t last_fault_cmd;
static int16_t sel_pos, elev_pos;

/* ---- fault detail of the reply being built ---- */
static uint8_t d_pocket, d_card;
static uint16_t d_count;
static uint8_t f_card[100], f_kind[100], f_n; /* findings: kind 0 missing, 1 extra, 2 duplicate, 3 foreign */
static char reason[72];

static void service(void);

/* ================= utilities ================= */

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static void p8(uint8_t v) { if (w < TX_MAX) tx[w++] = v; }
static void p16(uint16_t v) { p8((uint8_t)(v >> 8)); p8((uint8_t)v); }
static void p32(uint32_t v) { p16((uint16_t)(v >> 16)); p16((uint16_t)v); }
static uint8_t is_card(uint8_t b) { return b < N_CARDS; }
static uint8_t bit_get(const uint8_t *set, uint8_t b) { return (uint8_t)((set[7 - b / 8] >> (b % 8)) & 1); }

static void set_reason(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
static void set_reason(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
}

static void wait_ms(uint16_t n)
{
    uint32_t t0 = millis();
    while (millis() - t0 < n)
        service();
}

/* ================= randomness =================
 * The AVR has no random source an emulator could not predict, so randomness comes from a seed in EEPROM (set at
 * pairing, renewed at every boot so an old seed says nothing of new numbers), the boot counter, the pairing key,
 * and whatever the host's nonces and the arrival times of its frames add. An observer without the pairing key
 * cannot predict any of it. */
static void rng_bytes(uint8_t *out, uint8_t n)
{
    uint8_t block[32];
    while (n) {
        sha256_ctx c;
        uint16_t t = TCNT1;
        hmac_begin(&k_rng, &c);
        sha256_update(&c, rng_pool, 32);
        sha256_update(&c, (const uint8_t *)&rng_ctr, 4);
        sha256_update(&c, (const uint8_t *)&rng_jitter, 4);
        sha256_update(&c, (const uint8_t *)&t, 2);
        hmac_end(&k_rng, &c, block);
        rng_ctr++;
        uint8_t k = n < 32 ? n : 32;
        memcpy(out, block, k);
        out += k;
        n -= k;
    }
}

static void rng_mix(const uint8_t *data, uint8_t n)
{
    sha256_ctx c;
    uint16_t t = TCNT1;
    hmac_begin(&k_rng, &c);
    sha256_update(&c, rng_pool, 32);
    sha256_update(&c, data, n);
    sha256_update(&c, (const uint8_t *)&t, 2);
    hmac_end(&k_rng, &c, rng_pool);
}

static uint8_t rng_buf[32], rng_left;

static uint8_t rng_below(uint8_t n) /* uniform in 0..n-1, by rejection: 16 draws per HMAC */
{
    uint16_t limit = (uint16_t)(65536UL - 65536UL % n), r;
    do {
        if (rng_left < 2) {
            rng_bytes(rng_buf, 32);
            rng_left = 32;
        }
        rng_left -= 2;
        r = (uint16_t)(rng_buf[rng_left] << 8 | rng_buf[rng_left + 1]);
    } while (limit != 0 && r >= limit);
    return (uint8_t)(r % n);
}

/* ================= non-volatile memory ================= */

static void nv_save_fault(void)
{
    eeprom_update_byte((uint8_t *)NV_FAULT, last_fault);
    eeprom_update_block(&last_fault_cmd, (void *)(NV_FAULT + 1), 4);
}

static void nv_save_deck(void)
{
    eeprom_update_byte((uint8_t *)NV_DECK, verified);
    eeprom_update_byte((uint8_t *)(NV_DECK + 1), base);
    eeprom_update_block(expected, (void *)(NV_DECK + 2), 8);
}

static void nv_save_plan(void)
{
    eeprom_update_block(&plan_cmd, (void *)NV_PLAN, 4);
    eeprom_update_byte((uint8_t *)(NV_PLAN + 5), plan_file);
    eeprom_update_byte((uint8_t *)(NV_PLAN + 6), plan_jstart);
    eeprom_update_block(plan_want, (void *)(NV_PLAN + 7), N_POCKETS);
    if (plan_file)
        eeprom_update_block(filemap, (void *)NV_FILEMAP, N_CARDS);
    /* Written last: the plan exists only once all of it is in place. */
    eeprom_update_byte((uint8_t *)(NV_PLAN + 4), plan_active);
}

static void journal_add(uint8_t card, uint8_t where)
{
    if (j_n >= JOURNAL_MAX)
        return;
    j_card[j_n] = card;
    j_where[j_n] = where;
    eeprom_update_byte((uint8_t *)(NV_JOURNAL + 2 * j_n), card);
    eeprom_update_byte((uint8_t *)(NV_JOURNAL + 2 * j_n + 1), where);
    j_n++;
    eeprom_update_byte((uint8_t *)NV_JOURNAL_N, j_n); /* the commit: one byte */
}

static void journal_clear_rejects(void)
{
    for (uint8_t i = 0; i < j_n; i++)
        if (j_where[i] >= J_REJ_CARD && j_where[i] < J_CLEARED) {
            j_where[i] |= J_CLEARED;
            eeprom_update_byte((uint8_t *)(NV_JOURNAL + 2 * i + 1), j_where[i]);
        }
}

static void journal_reset(void)
{
    j_n = 0;
    eeprom_update_byte((uint8_t *)NV_JOURNAL_N, 0);
}

/* The command window: 255 slots of {id, op, args length, args CRC, status, pocket, count}. */
struct wentry {
    uint32_t id;
    uint8_t op, alen;
    uint16_t acrc;
    uint8_t status, pocket;
    uint16_t count;
};

static int16_t window_find(uint32_t id, struct wentry *e)
{
    for (uint8_t i = 0; i < NV_WINDOW_SLOTS; i++) {
        uint16_t a = (uint16_t)(NV_WINDOW + (uint16_t)i * NV_WINDOW_ENTRY);
        if (eeprom_read_dword((const uint32_t *)a) != id)
            continue;
        eeprom_read_block(e, (const void *)a, sizeof *e);
        if (e->status == 0xFF)
            continue; /* never written */
        return i;
    }
    return -1;
}

static uint8_t window_add(uint32_t id, uint8_t op, uint16_t alen, uint16_t acrc, uint8_t status, uint16_t count)
{
    uint8_t slot = eeprom_read_byte((const uint8_t *)NV_WINDOW_HEAD);
    if (slot >= NV_WINDOW_SLOTS)
        slot = 0;
    uint16_t a = (uint16_t)(NV_WINDOW + (uint16_t)slot * NV_WINDOW_ENTRY);
    struct wentry e = {id, op, (uint8_t)(alen > 255 ? 255 : alen), acrc, 0xFF, NO_CARD, count};
    /* The slot is void while it is rewritten, so a power cut in between leaves no id with another's outcome. */
    eeprom_update_byte((uint8_t *)(a + 8), 0xFF);
    eeprom_update_block(&e, (void *)a, sizeof e);
    eeprom_update_byte((uint8_t *)(a + 8), status);
    eeprom_update_byte((uint8_t *)NV_WINDOW_HEAD, (uint8_t)((slot + 1) % NV_WINDOW_SLOTS));
    return slot;
}

static void window_finish(uint8_t slot, uint8_t status, uint8_t pocket, uint16_t count)
{
    uint16_t a = (uint16_t)(NV_WINDOW + (uint16_t)slot * NV_WINDOW_ENTRY);
    eeprom_update_byte((uint8_t *)(a + 9), pocket);
    eeprom_update_word((uint16_t *)(a + 10), count);
    eeprom_update_byte((uint8_t *)(a + 8), status); /* last: the outcome is recorded once all of it is there */
}

/* ================= machine state ================= */

static uint8_t pocket_count(uint8_t p)
{
    uint8_t n = 0;
    for (uint8_t i = 0; i < j_n; i++)
        n += j_where[i] == p;
    return n;
}

static uint8_t in_pockets(uint8_t card)
{
    for (uint8_t i = 0; i < j_n; i++)
        if (j_card[i] == card && j_where[i] < N_POCKETS)
            return 1;
    return 0;
}

static uint8_t remaining(uint8_t p)
{
    uint8_t landed = 0;
    for (uint8_t i = plan_jstart; i < j_n; i++)
        landed += j_where[i] == p;
    return plan_want[p] > landed ? (uint8_t)(plan_want[p] - landed) : 0;
}

static uint16_t plan_total(void)
{
    uint16_t t = 0;
    for (uint8_t p = 0; p < N_POCKETS; p++)
        t += remaining(p);
    return t;
}

/* Cards the machine believes are in the hopper: what the deck check left there, less the cards placed in
 * pockets and the deck's own cards waiting in the reject tray (unreadable or bounced, to be put back). */
static uint8_t hopper_count(void)
{
    if (!hopper_has_cards())
        return 0;
    int16_t n = base;
    for (uint8_t i = 0; i < j_n; i++)
        if (j_where[i] < N_POCKETS || j_where[i] == J_REJ_UNREAD || j_where[i] == J_REJ_BOUNCED)
            n--;
    return n < 0 ? 0 : (uint8_t)n;
}

/* ================= frames out ================= */

static void keystream_xor(const hmac_key *k, uint32_t seq, uint8_t *p, uint16_t n)
{
    uint8_t block[32], ctr[8];
    for (uint32_t i = 0; n; i++) {
        ctr[0] = (uint8_t)(seq >> 24), ctr[1] = (uint8_t)(seq >> 16), ctr[2] = (uint8_t)(seq >> 8), ctr[3] = (uint8_t)seq;
        ctr[4] = (uint8_t)(i >> 24), ctr[5] = (uint8_t)(i >> 16), ctr[6] = (uint8_t)(i >> 8), ctr[7] = (uint8_t)i;
        hmac_sha256(k, ctr, 8, block);
        uint8_t m = n < 32 ? (uint8_t)n : 32;
        for (uint8_t j = 0; j < m; j++)
            *p++ ^= block[j];
        n -= m;
    }
}

/* Send tx[6 .. w) as a frame of `type`: sealed with the session keys, or (hello) signed with the HELLO key. */
static void send_frame(uint8_t type, uint8_t hello)
{
    if (!hello && !session)
        return;
    uint16_t n = w;
    uint32_t seq = hello ? 0 : ++tx_seq;
    tx[0] = VERSION, tx[1] = type;
    tx[2] = (uint8_t)(seq >> 24), tx[3] = (uint8_t)(seq >> 16), tx[4] = (uint8_t)(seq >> 8), tx[5] = (uint8_t)seq;
    if (!hello && n > 6)
        keystream_xor(&k_d2h_enc, seq, tx + 6, (uint16_t)(n - 6));
    uint8_t tag[32];
    hmac_sha256(hello ? &k_hello : &k_d2h_mac, tx, n, tag);
    memcpy(tx + n, tag, 16);
    n += 16;
    uint16_t crc = crc16_frame(tx, n);
    tx[n] = (uint8_t)(crc >> 8), tx[n + 1] = (uint8_t)crc;
    cobs_stream(tx, (uint16_t)(n + 2), host_putc);
    host_putc(0);
}

static void notice(uint8_t code)
{
    notices[code]++;
    w = 6;
    p8(code);
    p32(notices[code]);
    send_frame(T_NOTICE, code == N_NO_SESSION || !session);
}

static void put_state(void)
{
    p32(boot_id);
    p8(hopper_count());
    p8(door_open());
    p8(verified);
    p16(last_fault);
    p32(last_fault_cmd);
    p32(plan_active ? plan_cmd : 0);
    if (plan_active) {
        p8(N_POCKETS);
        for (uint8_t p = 0; p < N_POCKETS; p++)
            p8(remaining(p));
    } else {
        p8(0);
    }
    p8(N_POCKETS);
    for (uint8_t p = 0; p < N_POCKETS; p++) {
        p8(pocket_count(p));
        for (uint8_t i = 0; i < j_n; i++)
            if (j_where[i] == p)
                p8(j_card[i]);
    }
    uint8_t nrej = 0;
    for (uint8_t i = 0; i < j_n; i++)
        nrej += j_where[i] >= J_REJ_CARD && j_where[i] < J_CLEARED;
    p8(nrej);
    for (uint8_t i = 0; i < j_n; i++) {
        uint8_t wh = j_where[i];
        if (wh >= J_REJ_CARD && wh < J_CLEARED)
            p8(wh == J_REJ_FOREIGN || wh == J_REJ_UNREAD ? NO_CARD : j_card[i]);
    }
}

static void detail_reset(void)
{
    d_pocket = NO_CARD, d_card = NO_CARD, d_count = 0, f_n = 0, reason[0] = 0;
}

static void put_detail(void)
{
    p8(d_pocket);
    p8(d_card);
    p16(d_count);
    for (uint8_t kind = 0; kind < 4; kind++) {
        uint8_t n = 0;
        for (uint8_t i = 0; i < f_n; i++)
            n += f_kind[i] == kind;
        p8(n);
        for (uint8_t i = 0; i < f_n; i++)
            if (f_kind[i] == kind)
                p8(f_card[i]);
    }
    uint8_t n = (uint8_t)strlen(reason);
    p8(n);
    for (uint8_t i = 0; i < n; i++)
        p8((uint8_t)reason[i]);
}

static uint8_t carries_state(uint8_t op, uint8_t status)
{
    if (status != F_OK)
        return status != F_CANCELLED;
    return !(op == OP_PING || op == OP_LOAD || op == OP_SHUFFLE || op == OP_STOP);
}

/* Build REPLY (id, status, detail, [state]) in tx[6..w). */
static void build_reply(uint32_t id, uint8_t status, uint8_t with_state)
{
    w = 6;
    p32(id);
    p16(status);
    put_detail();
    if (with_state)
        put_state();
}

static void cache_reply(uint32_t id)
{
    uint16_t n = (uint16_t)(w - 6);
    if (n > REPLY_RAM_BYTES)
        return; /* the window still answers for it, with its status and today's state */
    rcache[rcache_next].id = id;
    rcache[rcache_next].len = n;
    memcpy(rcache[rcache_next].data, tx + 6, n);
    rcache_next = (uint8_t)((rcache_next + 1) % REPLY_RAM);
}

static void send_ack(uint32_t id, uint8_t queued)
{
    w = 6;
    p32(id);
    p8(queued);
    send_frame(T_ACK, 0);
}

/* A repeated id: the same reply again (exact from RAM, else rebuilt from the window). */
static void resend_reply(uint32_t id, const struct wentry *e)
{
    for (uint8_t i = 0; i < REPLY_RAM; i++)
        if (rcache[i].len && rcache[i].id == id) {
            memcpy(tx + 6, rcache[i].data, rcache[i].len);
            w = (uint16_t)(6 + rcache[i].len);
            send_frame(T_REPLY, 0);
            return;
        }
    detail_reset();
    d_pocket = e->pocket;
    d_count = e->count;
    build_reply(id, e->status, carries_state(e->op, e->status));
    send_frame(T_REPLY, 0);
}

/* ================= frames in ================= */

static void derive_keys(const uint8_t *host_nonce, const uint8_t *dev_nonce)
{
    uint8_t master[32], k[32];
    sha256_ctx c;
    hmac_begin(&k_pair, &c);
    sha256_update(&c, (const uint8_t *)"cardref session", 15);
    sha256_update(&c, host_nonce, 16);
    sha256_update(&c, dev_nonce, 16);
    uint8_t b[4] = {(uint8_t)(boot_id >> 24), (uint8_t)(boot_id >> 16), (uint8_t)(boot_id >> 8), (uint8_t)boot_id};
    sha256_update(&c, b, 4);
    hmac_end(&k_pair, &c, master);
    hmac_key km;
    hmac_prepare(&km, master, 32);
    hmac_sha256(&km, (const uint8_t *)"h2d mac", 7, k);
    hmac_prepare(&k_h2d_mac, k, 32);
    hmac_sha256(&km, (const uint8_t *)"h2d enc", 7, k);
    hmac_prepare(&k_h2d_enc, k, 32);
    hmac_sha256(&km, (const uint8_t *)"d2h mac", 7, k);
    hmac_prepare(&k_d2h_mac, k, 32);
    hmac_sha256(&km, (const uint8_t *)"d2h enc", 7, k);
    hmac_prepare(&k_d2h_enc, k, 32);
    memset(master, 0, sizeof master);
    memset(k, 0, sizeof k);
}

static uint8_t tag_ok(const hmac_key *k, const uint8_t *body, uint16_t len)
{
    uint8_t tag[32], diff = 0;
    hmac_sha256(k, body, (uint16_t)(len - 16), tag);
    for (uint8_t i = 0; i < 16; i++) /* constant time */
        diff |= (uint8_t)(tag[i] ^ body[len - 16 + i]);
    return diff == 0;
}

static void on_hello(uint8_t *body, uint16_t len)
{
    if (len < 22 || !tag_ok(&k_hello, body, len) || len - 22 < 17) {
        notice(N_AUTH_FAILED);
        return;
    }
    const uint8_t *payload = body + 6;
    if (payload[0] != VERSION) {
        notice(N_MALFORMED);
        return;
    }
    uint8_t host_nonce[16], dev_nonce[16];
    memcpy(host_nonce, payload + 1, 16);
    rng_mix(host_nonce, 16);
    rng_bytes(dev_nonce, 16);
    derive_keys(host_nonce, dev_nonce);
    session = 1;
    rx_seq = tx_seq = 0;
    w = 6;
    p8(VERSION);
    p16(CAPABILITIES);
    p8(N_POCKETS);
    p32(boot_id);
    for (uint8_t i = 0; i < 16; i++)
        p8(host_nonce[i]);
    for (uint8_t i = 0; i < 16; i++)
        p8(dev_nonce[i]);
    send_frame(T_HELLO_REPLY, 1);
    w = 6;
    put_state();
    send_frame(T_STATE, 0);
}

static void cancel_queue(void)
{
    for (uint8_t i = 0; i < qn; i++) {
        window_add(queue[i].id, queue[i].op, queue[i].alen, queue[i].acrc, F_CANCELLED, 0);
        detail_reset();
        build_reply(queue[i].id, F_CANCELLED, 0);
        cache_reply(queue[i].id);
        send_frame(T_REPLY, 0);
    }
    qn = 0;
}

static void emergency_stop(uint32_t id, uint16_t acrc)
{
    uint8_t cancelled = qn;
    window_add(id, OP_STOP, 0, acrc, F_OK, cancelled);
    cancel_queue();
    if (current_id)
        stop_flag = 1;
    detail_reset();
    d_count = cancelled;
    build_reply(id, F_OK, 0);
    cache_reply(id);
    send_frame(T_REPLY, 0);
}

static void on_command(uint32_t id, uint8_t op, const uint8_t *args, uint16_t alen)
{
    uint16_t acrc = crc16_update(CRC16_INIT, args, alen);
    struct wentry e;
    uint8_t used = 0;
    if (window_find(id, &e) >= 0) {
        if (e.op != op || e.alen != (alen > 255 ? 255 : alen) || e.acrc != acrc) {
            used = 1;
        } else if (e.status == RUNNING) {
            send_ack(id, qn);
            return;
        } else {
            resend_reply(id, &e);
            return;
        }
    }
    for (uint8_t i = 0; i < qn && !used; i++)
        if (queue[i].id == id) {
            if (queue[i].op != op || queue[i].alen != alen || queue[i].acrc != acrc) {
                used = 1;
                break;
            }
            send_ack(id, qn);
            return;
        }
    if (used) {
        detail_reset();
        set_reason("command id %lu was already used for another command", (unsigned long)id);
        build_reply(id, F_BAD_COMMAND, 0);
        send_frame(T_REPLY, 0);
        return;
    }
    if (op == OP_STOP) {
        emergency_stop(id, acrc);
        return;
    }
    if (qn >= QUEUE_MAX)
        return; /* full: no ack, so the host sends it again later */
    struct qcmd *q = &queue[qn++];
    q->id = id, q->op = op, q->alen = alen, q->acrc = acrc;
    memcpy(q->args, args, alen < ARGS_MAX ? alen : ARGS_MAX);
    send_ack(id, qn);
}

static void on_frame(uint8_t *body, uint16_t len)
{
    if (len >= 6 && body[1] == T_HELLO) {
        on_hello(body, len);
        return;
    }
    if (!session) {
        notice(N_NO_SESSION);
        return;
    }
    if (len < 22 || !tag_ok(&k_h2d_mac, body, len)) {
        notice(N_AUTH_FAILED);
        return;
    }
    uint32_t seq = be32(body + 2);
    if (seq <= rx_seq) {
        notice(N_REPLAYED);
        return;
    }
    rx_seq = seq;
    uint16_t plen = (uint16_t)(len - 22);
    keystream_xor(&k_h2d_enc, seq, body + 6, plen);
    uint8_t op = body[10];
    if (body[1] != T_COMMAND || plen < 5 || !(op <= OP_ABORT || op == OP_STOP)) {
        notice(N_MALFORMED);
        return;
    }
    on_command(be32(body + 6), op, body + 11, (uint16_t)(plen - 5));
}

static void link_poll(void)
{
    int b;
    while ((b = host_getc()) >= 0) {
        if (b != 0) {
            if (acc_n < ACC_MAX)
                acc[acc_n++] = (uint8_t)b;
            else
                acc_over = 1; /* noise: a run longer than any frame; dropped at the next zero */
            continue;
        }
        uint16_t n = acc_n;
        uint8_t over = acc_over;
        acc_n = 0, acc_over = 0;
        if (n == 0 && !over)
            continue; /* an empty frame */
        int m = over ? -1 : cobs_decode(acc, n);
        if (m < 3) {
            frames_bad++;
            continue;
        }
        uint16_t crc = crc16_frame(acc, (uint16_t)(m - 2));
        if (crc != ((uint16_t)acc[m - 2] << 8 | acc[m - 1])) {
            frames_bad++;
            continue;
        }
        rng_jitter = (rng_jitter << 5 | rng_jitter >> 27) ^ TCNT1; /* when each frame came: a little entropy */
        on_frame(acc, (uint16_t)(m - 2));
    }
}

/* ================= the service loop ================= */

static uint32_t last_hb, last_busy;

static void service(void)
{
    link_poll();
    if (estop_latched) {
        /* The button: stop before the next card, cancel what waits, as STOP does (there is no id to answer). */
        estop_latched = 0;
        cancel_queue();
        if (current_id)
            stop_flag = 1;
    }
    uint32_t now = millis();
    if (current_id && now - last_busy >= cfg_busy) {
        last_busy = now;
        w = 6;
        p32(current_id);
        p16(prog_done);
        p16(prog_total);
        send_frame(T_BUSY, 0);
    }
    if (now - last_hb >= cfg_hb) {
        last_hb = now;
        w = 6;
        p32(now);
        p32(current_id);
        send_frame(T_HEARTBEAT, 0);
    }
    link_poll();
    hw_sleep();
}

/* ================= the mechanism ================= */

static void wait_motion(void)
{
    while (motion_busy())
        service();
}

static void sel_goto(uint8_t pos)
{
    int16_t target = (int16_t)(pos * SEL_STEPS_PER_POSITION);
    if (target == sel_pos)
        return;
    motion_start(M_SEL, target > sel_pos, (uint16_t)(target > sel_pos ? target - sel_pos : sel_pos - target), cfg_sel_us, 0);
    wait_motion();
    sel_pos = target;
}

static void sel_home_now(void)
{
    /* Down against the home switch (the selector's end stop makes extra steps harmless). */
    motion_start(M_SEL, 0, (POS_STAGING + 1) * SEL_STEPS_PER_POSITION, cfg_sel_us, 0);
    while (motion_busy() && !sel_home())
        service();
    motion_halt();
    sel_pos = 0;
}

static void elev_goto(int16_t target)
{
    if (target == elev_pos)
        return;
    motion_start(M_ELEV, target > elev_pos, (uint16_t)(target > elev_pos ? target - elev_pos : elev_pos - target), cfg_sel_us, 0);
    wait_motion();
    elev_pos = target;
}

enum { FEED_OK, FEED_JAM, FEED_DOUBLE, FEED_EMPTY };

/* The CARD frame of the card just placed waits until the next feed has started: signing it (16 ms) then
 * overlaps the feed roller's 300 ms instead of adding to every card. It always goes before the REPLY. */
static struct {
    uint8_t pending, pocket, card;
    uint16_t index;
} card_out;

static void flush_card_frame(void)
{
    if (!card_out.pending)
        return;
    card_out.pending = 0;
    w = 6;
    p32(cur.id);
    p16(card_out.index);
    p8(card_out.pocket);
    p8(card_out.card);
    send_frame(T_CARD, 0);
}

/* Feed the top card into the bay: stop as the bay sensor sees it; none within FEED_MAX_STEPS is a jam. */
static uint8_t feed_card(void)
{
    if (!bay_card()) {
        motion_start(M_FEED, 1, FEED_MAX_STEPS, cfg_feed_us, 1);
        flush_card_frame();
        wait_motion();
    }
    flush_card_frame();
    uint8_t r = bay_card() ? (bay_double() ? FEED_DOUBLE : FEED_OK) : hopper_has_cards() ? FEED_JAM : FEED_EMPTY;
    if (r == FEED_JAM || r == FEED_DOUBLE) { /* back the card (or both) out into the hopper */
        motion_start(M_FEED, 0, FEED_BACK_STEPS, cfg_feed_us, 0);
        wait_motion();
    }
    OUT_HI(FEED_EN);
    return r;
}

/* Ask the reader for the card in the bay: 0xA5, card, back (0 = ours), checksum. 0 if it did not answer. */
static uint8_t read_card(uint8_t *card, uint8_t *foreign)
{
    uint8_t got[4], n = 0;
    reader_flush();
    reader_putc('R');
    uint32_t t0 = millis();
    while (n < 4) {
        int b = reader_getc();
        if (b < 0) {
            /* Look at the clock only when nothing is waiting: serving the link can take longer than the reader. */
            if (millis() - t0 >= cfg_read_ms)
                break;
            service();
            continue;
        }
        if (n == 0 && b != 0xA5)
            continue;
        got[n++] = (uint8_t)b;
    }
    if (n < 4 || (uint8_t)(got[1] ^ got[2] ^ 0x5A) != got[3])
        return 0;
    *card = got[1];
    *foreign = got[2] != 0;
    return 1;
}

/* Drop the card in the bay to a selector position; for a pocket, 1 if the pocket sensor saw it land. */
static uint8_t drop_to(uint8_t pos, uint8_t card)
{
    sel_goto(pos);
    if (pos < N_POCKETS) {
        eeprom_update_byte((uint8_t *)(NV_INFLIGHT + 1), card);
        eeprom_update_byte((uint8_t *)(NV_INFLIGHT + 2), pos);
        eeprom_update_byte((uint8_t *)NV_INFLIGHT, 1);
    }
    pocket_pulses = 0;
    gate_pulse();
    if (pos >= N_POCKETS)
        return 1;
    uint32_t t0 = millis();
    while (!pocket_pulses && millis() - t0 < cfg_land_ms)
        service();
    return pocket_pulses != 0;
}

static void inflight_done(void) { eeprom_update_byte((uint8_t *)NV_INFLIGHT, 0); }

/* ================= commands ================= */

static uint8_t fault(uint8_t status)
{
    if (status != F_OK && status < F_BAD_COMMAND) {
        last_fault = status;
        last_fault_cmd = cur.id;
        nv_save_fault();
        lamp(LAMP_FAULT, 1);
    }
    return status;
}

static uint8_t stopped(void) { return stop_flag || estop_pressed(); }

static uint8_t next_pocket(uint8_t card)
{
    if (plan_file) {
        uint8_t p = is_card(card) ? filemap[card] : NO_CARD;
        return p < N_POCKETS && remaining(p) ? p : NO_CARD;
    }
    uint8_t cursor = 0;
    for (uint8_t i = j_n; i > plan_jstart; i--)
        if (j_where[i - 1] < N_POCKETS) {
            cursor = (uint8_t)((j_where[i - 1] + 1) % N_POCKETS);
            break;
        }
    for (uint8_t s = 0; s < N_POCKETS; s++) {
        uint8_t p = (uint8_t)((cursor + s) % N_POCKETS);
        if (remaining(p))
            return p;
    }
    return NO_CARD;
}

static uint8_t reject(uint8_t card, uint8_t where, uint8_t status)
{
    drop_to(POS_REJECT, card);
    journal_add(card, where);
    if (status == F_FOREIGN || status == F_DUPLICATE || status == F_EXTRA)
        d_card = card;
    return fault(status);
}

/* The hopper ran out with cards still owed: the cards of a verified deck that are nowhere are missing; with a
 * count-only deck the machine cannot know which, so the hopper is simply empty. */
static uint8_t hopper_out(void)
{
    for (uint8_t c = 0; c < N_CARDS; c++) {
        if (!bit_get(expected, c) || in_pockets(c))
            continue;
        uint8_t seen = 0; /* a card of ours waiting in the reject tray is not missing */
        for (uint8_t i = 0; i < j_n; i++)
            seen |= j_card[i] == c && (j_where[i] == J_REJ_CARD || j_where[i] == J_REJ_BOUNCED);
        if (!seen && f_n < sizeof f_card)
            f_card[f_n] = c, f_kind[f_n++] = 0;
    }
    if (f_n)
        return fault(F_MISSING);
    d_count = plan_total();
    return fault(F_HOPPER_EMPTY);
}

static uint8_t run_plan_cards(void);

static uint8_t run_plan(void)
{
    uint8_t status = run_plan_cards();
    flush_card_frame();
    return status;
}

static uint8_t run_plan_cards(void)
{
    uint16_t total = plan_total(), index = 0;
    prog_done = 0, prog_total = total;
    lamp(LAMP_BUSY, 1);
    while (plan_total() > 0) {
        if (stopped())
            return fault(F_EMERGENCY_STOP);
        if (door_open())
            return fault(F_DOOR_OPEN);
        if (!hopper_has_cards() && !bay_card())
            return hopper_out();
        uint8_t r = feed_card();
        if (r == FEED_EMPTY)
            return hopper_out();
        if (r == FEED_JAM)
            return fault(F_JAM);
        if (r == FEED_DOUBLE)
            return fault(F_DOUBLE_FEED);
        uint8_t card = NO_CARD, foreign = 0;
        if (!read_card(&card, &foreign) || !is_card(card))
            return reject(NO_CARD, J_REJ_UNREAD, F_UNREADABLE);
        if (foreign)
            return reject(card, J_REJ_FOREIGN, F_FOREIGN);
        if (in_pockets(card))
            return reject(card, J_REJ_CARD, F_DUPLICATE);
        uint8_t p = next_pocket(card);
        if (p == NO_CARD)
            return reject(card, J_REJ_CARD, F_EXTRA);
        if (!drop_to(p, card)) {
            /* It bounced off the pocket's edge into the reject tray: the pocket's sensor did not count it. */
            journal_add(card, J_REJ_BOUNCED);
            inflight_done();
            d_pocket = p;
            d_count = pocket_count(p);
            return fault(F_POCKET_COUNT);
        }
        journal_add(card, p);
        inflight_done();
        card_out.pending = 1, card_out.index = index++, card_out.pocket = p, card_out.card = card;
        prog_done = (uint16_t)(total - plan_total());
    }
    plan_active = 0;
    nv_save_plan();
    return F_OK;
}

static uint8_t start_plan(uint8_t is_file)
{
    plan_active = 1, plan_file = is_file, plan_cmd = cur.id, plan_jstart = j_n;
    nv_save_plan();
    return run_plan();
}

static uint8_t bad(void) { return F_BAD_COMMAND; }

static uint8_t do_deal(void)
{
    const uint8_t *a = cur.args;
    uint16_t n = cur.alen;
    memset(plan_want, 0, sizeof plan_want);
    uint8_t is_file = 0;
    if (cur.op == OP_DEAL) {
        if (n < 1 || n != 1u + a[0]) {
            set_reason("DEAL: payload of %u bytes, needed %u", n, n ? 1u + a[0] : 1u);
            return bad();
        }
        if (a[0] > N_POCKETS) {
            set_reason("%u pockets named, the machine has %u", a[0], N_POCKETS);
            return bad();
        }
        memcpy(plan_want, a + 1, a[0]);
    } else if (cur.op == OP_DEAL_MORE || cur.op == OP_DEAL_REST) {
        if (n != (cur.op == OP_DEAL_MORE ? 2u : 1u)) {
            set_reason("wrong argument length");
            return bad();
        }
        if (a[0] >= N_POCKETS) {
            set_reason("pocket %u does not exist", a[0]);
            return bad();
        }
        plan_want[a[0]] = cur.op == OP_DEAL_MORE ? a[1] : hopper_count();
    } else {
        if (n > ARGS_MAX) {
            set_reason("a deal file names each card once");
            return bad();
        }
        if (n < 1 || n != 1u + 2u * a[0]) {
            set_reason("DEAL_FILE: payload of %u bytes, needed %u", n, n ? 1u + 2u * a[0] : 1u);
            return bad();
        }
        memset(filemap, NO_CARD, sizeof filemap);
        for (uint8_t i = 0; i < a[0]; i++) {
            uint8_t c = a[1 + 2 * i];
            if (c != NO_CARD && !is_card(c)) {
                set_reason("DEAL_FILE: byte 0x%02x is not a card", c);
                return bad();
            }
        }
        for (uint8_t i = 0; i < a[0]; i++) {
            uint8_t c = a[1 + 2 * i], p = a[2 + 2 * i];
            if (c == NO_CARD || filemap[c] != NO_CARD) {
                set_reason("a deal file names each card once");
                return bad();
            }
            filemap[c] = p;
        }
        for (uint8_t i = 0; i < a[0]; i++)
            if (a[2 + 2 * i] >= N_POCKETS) {
                set_reason("a deal file names a pocket the machine does not have");
                return bad();
            }
        for (uint8_t i = 0; i < a[0]; i++)
            plan_want[a[2 + 2 * i]]++;
        is_file = 1;
    }
    uint16_t total = 0;
    for (uint8_t p = 0; p < N_POCKETS; p++)
        total += plan_want[p];
    uint8_t h = hopper_count();
    if (total > h) {
        set_reason("the deal needs %u cards, the hopper holds %u", total, h);
        return bad();
    }
    return start_plan(is_file);
}

/* LOAD: read every card of the hopper into the staging tray, in order; the strays go to the reject tray. */
static uint8_t do_load(void)
{
    if (cur.alen != 8) {
        set_reason("LOAD: payload of %u bytes, needed 8", cur.alen);
        return bad();
    }
    if (cur.args[0] || (cur.args[1] & 0xC0)) { /* bits 54..63 (big-endian: the first byte and a quarter) */
        set_reason("LOAD: the deck set names card bytes above 53");
        return bad();
    }
    lamp(LAMP_LOAD, 1);
    wait_ms(5); /* the operator has gathered the cards and loaded the hopper */
    lamp(LAMP_FAULT, 0);
    memcpy(expected, cur.args, 8);
    uint8_t any = 0;
    for (uint8_t i = 0; i < 8; i++)
        any |= expected[i];
    verified = 0;
    base = 0;
    journal_reset();
    nv_save_deck();
    uint8_t seen[8] = {0}, staged = 0, rejected = 0, status = F_OK;
    uint16_t count = 0;
    elev_goto(0);
    while (hopper_has_cards() || bay_card()) {
        if (stopped()) {
            status = F_EMERGENCY_STOP;
            break;
        }
        uint8_t r = feed_card();
        if (r == FEED_EMPTY)
            break;
        if (r != FEED_OK) {
            status = r == FEED_JAM ? F_JAM : F_DOUBLE_FEED;
            break;
        }
        uint8_t card = NO_CARD, foreign = 0;
        if (!read_card(&card, &foreign) || !is_card(card)) {
            drop_to(POS_REJECT, NO_CARD);
            journal_add(NO_CARD, J_REJ_UNREAD);
            status = F_UNREADABLE;
            count++, rejected++;
            continue;
        }
        count++;
        uint8_t kind = foreign ? 3 : bit_get(seen, card) ? 2 : (any && !bit_get(expected, card)) ? 1 : 0xFF;
        if (kind != 0xFF) {
            if (f_n < sizeof f_card)
                f_card[f_n] = card, f_kind[f_n++] = kind;
            drop_to(POS_REJECT, card);
            journal_add(card, foreign ? J_REJ_FOREIGN : J_REJ_CARD);
            rejected++;
        } else {
            seen[7 - card / 8] |= (uint8_t)(1u << (card % 8));
            elev_goto((int16_t)(staged * ELEV_STEPS_PER_SLOT)); /* under the stack: the order is kept */
            drop_to(POS_STAGING, card);
            staged++;
        }
        prog_done = count;
        prog_total = count + (hopper_has_cards() ? 1 : 0);
    }
    dump_pulse(); /* the staging stack back into the hopper */
    elev_goto(0);
    for (uint8_t c = 0; any && c < N_CARDS; c++)
        if (bit_get(expected, c) && !bit_get(seen, c) && f_n < sizeof f_card)
            f_card[f_n] = c, f_kind[f_n++] = 0;
    d_count = count;
    base = staged;
    if (status == F_OK) {
        /* The worst finding: foreign > duplicate > extra > missing. */
        static const uint8_t order[4] = {3, 2, 1, 0}, codes[4] = {F_FOREIGN, F_DUPLICATE, F_EXTRA, F_MISSING};
        for (uint8_t k = 0; k < 4 && status == F_OK; k++)
            for (uint8_t i = 0; i < f_n; i++)
                if (f_kind[i] == order[k]) {
                    status = codes[k];
                    break;
                }
    }
    verified = status == F_OK;
    nv_save_deck();
    lamp(LAMP_LOAD, 0);
    return fault(status);
}

/* SHUFFLE: every card into the staging stack at a random height (the k-th card at one of k+1 places, uniformly:
 * a uniform permutation), then back into the hopper. */
static uint8_t do_shuffle(void)
{
    uint8_t staged = 0;
    prog_done = 0, prog_total = hopper_count();
    while (hopper_has_cards() || bay_card()) {
        if (stopped()) {
            dump_pulse();
            elev_goto(0);
            return fault(F_EMERGENCY_STOP);
        }
        uint8_t r = feed_card();
        if (r == FEED_EMPTY)
            break;
        if (r != FEED_OK) {
            dump_pulse();
            elev_goto(0);
            return fault(r == FEED_JAM ? F_JAM : F_DOUBLE_FEED);
        }
        elev_goto((int16_t)(rng_below((uint8_t)(staged + 1)) * ELEV_STEPS_PER_SLOT));
        drop_to(POS_STAGING, NO_CARD);
        staged++;
        prog_done = staged;
    }
    dump_pulse();
    elev_goto(0);
    return F_OK;
}

static uint8_t execute(void)
{
    detail_reset();
    switch (cur.op) {
    case OP_PING:
    case OP_STATUS:
        return F_OK;
    case OP_ABORT:
        plan_active = 0;
        nv_save_plan();
        lamp(LAMP_FAULT, 0);
        return F_OK;
    case OP_RESUME:
        if (!plan_active)
            return F_NOTHING_TO_RESUME;
        lamp(LAMP_RESUME, 1);
        wait_ms(5); /* the operator has done what the fault asked: cleared the path, emptied the reject tray */
        journal_clear_rejects();
        lamp(LAMP_RESUME, 0);
        lamp(LAMP_FAULT, 0);
        plan_cmd = cur.id; /* RESUME now owns the deal: its id is the one a power loss will answer */
        nv_save_plan();
        return run_plan();
    default:
        break;
    }
    if (plan_active)
        return F_FAULT_PENDING;
    if (cur.op == OP_LOAD)
        return do_load();
    if (!verified)
        return F_NOT_LOADED;
    if (cur.op == OP_SHUFFLE)
        return do_shuffle();
    return do_deal();
}

static void work(void)
{
    if (!qn)
        return;
    cur = queue[0];
    qn--;
    memmove(&queue[0], &queue[1], qn * sizeof queue[0]);
    current_id = cur.id;
    prog_done = prog_total = 0;
    last_busy = millis();
    uint8_t slot = window_add(cur.id, cur.op, cur.alen, cur.acrc, RUNNING, 0);
    uint8_t status = execute();
    motion_halt();
    OUT_HI(FEED_EN), OUT_HI(SEL_EN), OUT_HI(ELEV_EN);
    lamp(LAMP_BUSY, 0);
    stop_flag = 0;
    build_reply(cur.id, status, carries_state(cur.op, status));
    window_finish(slot, status, d_pocket, d_count);
    cache_reply(cur.id);
    current_id = 0;
    send_frame(T_REPLY, 0);
}

/* ================= boot ================= */

static void boot(void)
{
    uint8_t key[32], seed[32], b[32];
    if (eeprom_read_dword((const uint32_t *)NV_MAGIC) == NV_MAGIC_VALUE) {
        uint16_t cfg[6];
        eeprom_read_block(cfg, (const void *)NV_CFG, sizeof cfg);
        cfg_hb = cfg[0], cfg_busy = cfg[1], cfg_feed_us = cfg[2], cfg_sel_us = cfg[3], cfg_read_ms = cfg[4], cfg_land_ms = cfg[5];
    }
    eeprom_read_block(key, (const void *)NV_KEY, 32);
    hmac_prepare(&k_pair, key, 32);
    hmac_sha256(&k_pair, (const uint8_t *)"cardref hello mac", 17, b);
    hmac_prepare(&k_hello, b, 32);
    uint32_t boots = eeprom_read_dword((const uint32_t *)NV_BOOTS) + 1;
    eeprom_update_dword((uint32_t *)NV_BOOTS, boots);
    eeprom_read_block(seed, (const void *)NV_SEED, 32);
    sha256_ctx c;
    hmac_begin(&k_pair, &c);
    sha256_update(&c, (const uint8_t *)"cardref rng", 11);
    sha256_update(&c, seed, 32);
    sha256_update(&c, (const uint8_t *)&boots, 4);
    hmac_end(&k_pair, &c, b);
    hmac_prepare(&k_rng, b, 32);
    rng_bytes(seed, 32);
    eeprom_update_block(seed, (void *)NV_SEED, 32);
    do
        rng_bytes((uint8_t *)&boot_id, 4);
    while (!boot_id);
    memset(key, 0, sizeof key);

    last_fault = eeprom_read_byte((const uint8_t *)NV_FAULT);
    eeprom_read_block(&last_fault_cmd, (const void *)(NV_FAULT + 1), 4);
    if (last_fault == 0xFF)
        last_fault = 0, last_fault_cmd = 0;
    verified = eeprom_read_byte((const uint8_t *)NV_DECK) == 1;
    base = eeprom_read_byte((const uint8_t *)(NV_DECK + 1));
    if (base == 0xFF)
        base = 0;
    eeprom_read_block(expected, (const void *)(NV_DECK + 2), 8);
    j_n = eeprom_read_byte((const uint8_t *)NV_JOURNAL_N);
    if (j_n > JOURNAL_MAX)
        j_n = 0;
    for (uint8_t i = 0; i < j_n; i++) {
        j_card[i] = eeprom_read_byte((const uint8_t *)(NV_JOURNAL + 2 * i));
        j_where[i] = eeprom_read_byte((const uint8_t *)(NV_JOURNAL + 2 * i + 1));
    }
    plan_active = eeprom_read_byte((const uint8_t *)(NV_PLAN + 4)) == 1;
    eeprom_read_block(&plan_cmd, (const void *)NV_PLAN, 4);
    plan_file = eeprom_read_byte((const uint8_t *)(NV_PLAN + 5));
    plan_jstart = eeprom_read_byte((const uint8_t *)(NV_PLAN + 6));
    eeprom_read_block(plan_want, (const void *)(NV_PLAN + 7), N_POCKETS);
    eeprom_read_block(filemap, (const void *)NV_FILEMAP, N_CARDS);

    /* A card released from the bay when the power failed: if the bay is empty it fell, so it is in the pocket. */
    if (eeprom_read_byte((const uint8_t *)NV_INFLIGHT) == 1) {
        uint8_t card = eeprom_read_byte((const uint8_t *)(NV_INFLIGHT + 1));
        uint8_t dest = eeprom_read_byte((const uint8_t *)(NV_INFLIGHT + 2));
        uint8_t committed = j_n && j_card[j_n - 1] == card && j_where[j_n - 1] == dest;
        if (!bay_card() && !committed)
            journal_add(card, dest);
        inflight_done();
    }
    /* Every command the power interrupted is answered POWER_LOST from now on (never run again). */
    for (uint8_t i = 0; i < NV_WINDOW_SLOTS; i++) {
        uint16_t a = (uint16_t)(NV_WINDOW + (uint16_t)i * NV_WINDOW_ENTRY);
        if (eeprom_read_byte((const uint8_t *)(a + 8)) == RUNNING) {
            eeprom_update_byte((uint8_t *)(a + 8), F_POWER_LOST);
            if (!plan_active || eeprom_read_dword((const uint32_t *)a) != plan_cmd)
                continue;
        }
    }
    if (plan_active) {
        last_fault = F_POWER_LOST;
        last_fault_cmd = plan_cmd;
        nv_save_fault();
        lamp(LAMP_FAULT, 1);
    }
}

int main(void)
{
    wdt_disable();
    hw_init();
    boot();
    sel_home_now();
    /* The elevator down against its end stop: a power cut may have left it anywhere. */
    motion_start(M_ELEV, 0, (N_CARDS + 6) * ELEV_STEPS_PER_SLOT, cfg_sel_us, 0);
    wait_motion();
    elev_pos = 0;
    last_hb = millis();
    for (;;) {
        service();
        work();
    }
}
