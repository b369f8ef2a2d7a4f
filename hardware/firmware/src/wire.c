#include "wire.h"
#include <string.h>

#ifdef __AVR__
#include <avr/pgmspace.h>
#define K_AT(i) pgm_read_dword(&K[i])
#else
#define PROGMEM
#define K_AT(i) K[i]
#endif

uint16_t crc16_update(uint16_t crc, const uint8_t *data, size_t len)
{
    while (len--) {
        crc ^= (uint16_t)(*data++) << 8;
        for (uint8_t i = 0; i < 8; i++)
            crc = (crc & 0x8000u) ? (uint16_t)((crc << 1) ^ 0x1021u) : (uint16_t)(crc << 1);
    }
    return crc;
}

uint16_t crc16_frame(const uint8_t *data, size_t len)
{
    return (uint16_t)(crc16_update(CRC16_INIT, data, len) ^ 0xFFFFu);
}

int cobs_decode(uint8_t *buf, size_t len)
{
    size_t in = 0, out = 0;
    while (in < len) {
        uint8_t code = buf[in++];
        if (code == 0)
            return -1;
        for (uint8_t i = 1; i < code; i++) {
            if (in >= len)
                return -1;
            uint8_t b = buf[in++];
            if (b == 0)
                return -1;
            buf[out++] = b;
        }
        /* A block shorter than 254 data bytes stands for a zero, except at the very end. */
        if (code != 0xFF && in < len)
            buf[out++] = 0;
    }
    return (int)out;
}

void cobs_stream(const uint8_t *p, size_t n, void (*put)(uint8_t))
{
    size_t i = 0;
    for (;;) {
        size_t j = i;
        while (j < n && p[j] != 0 && j - i < 254)
            j++;
        put((uint8_t)(j - i + 1));
        for (size_t k = i; k < j; k++)
            put(p[k]);
        if (j - i == 254) { /* a full block stands for no zero: the next block starts right after it */
            i = j;
            if (i >= n)
                return;
            continue;
        }
        if (j >= n)
            return;
        i = j + 1; /* the block ended at a zero */
        if (i >= n) { /* a zero at the very end: one empty block */
            put(1);
            return;
        }
    }
}

static uint8_t *enc_out;
static size_t enc_n;
static void enc_put(uint8_t b) { enc_out[enc_n++] = b; }

size_t cobs_encode(const uint8_t *src, size_t len, uint8_t *dst)
{
    enc_out = dst, enc_n = 0;
    cobs_stream(src, len, enc_put);
    return enc_n;
}

static const uint32_t K[64] PROGMEM = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static const uint32_t H0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

/* Rotations as whole-byte moves plus at most three one-bit rotations. The AVR has no barrel shifter and gcc-avr
 * turns x << 30 into a 30-step loop, so the usual (x >> n) | (x << (32 - n)) cost ~150k cycles a compression;
 * this way it is a fraction of that. */
#define RB8(x) (((x) >> 8) | ((x) << 24))
#define RB16(x) (((x) >> 16) | ((x) << 16))
#define RB24(x) (((x) >> 24) | ((x) << 8))
static inline uint32_t r1(uint32_t x) { return (x >> 1) | ((x & 1u) ? 0x80000000u : 0u); }
static inline uint32_t l1(uint32_t x) { return (x << 1) | ((x & 0x80000000u) ? 1u : 0u); }
static inline uint32_t r2(uint32_t x) { return r1(r1(x)); }
static inline uint32_t r3(uint32_t x) { return r1(r2(x)); }
static inline uint32_t l2(uint32_t x) { return l1(l1(x)); }
static inline uint32_t l3(uint32_t x) { return l1(l2(x)); }
/* ror 2, 13, 22 */
static inline uint32_t bsig0(uint32_t a) { return r2(a) ^ l3(RB16(a)) ^ l2(RB24(a)); }
/* ror 6, 11, 25 */
static inline uint32_t bsig1(uint32_t e) { uint32_t b = RB8(e); return l2(b) ^ r3(b) ^ r1(RB24(e)); }
/* ror 7, 18, shr 3 */
static inline uint32_t ssig0(uint32_t x) { return l1(RB8(x)) ^ r2(RB16(x)) ^ (x >> 3); }
/* ror 17, 19, shr 10 */
static inline uint32_t ssig1(uint32_t x) { uint32_t b = RB16(x); return r1(b) ^ r3(b) ^ ((x >> 8) >> 2); }

#define ROUND(a, b, c, d, e, f, g, h, i)                                                                              \
    do {                                                                                                          \
        uint32_t t1 = h + bsig1(e) + ((e & f) ^ (~e & g)) + K_AT(i) + sched(w, i);                                 \
        uint32_t t2 = bsig0(a) + ((a & b) ^ (a & c) ^ (b & c));                                                     \
        d += t1;                                                                                                  \
        h = t1 + t2;                                                                                              \
    } while (0)

static inline uint32_t sched(uint32_t *w, uint8_t i)
{
    if (i < 16)
        return w[i];
    return w[i & 15] += ssig0(w[(i + 1) & 15]) + w[(i + 9) & 15] + ssig1(w[(i + 14) & 15]);
}

/* One compression with a rolling 16-word schedule (64 bytes of stack instead of 256: the AVR has 8 KB of RAM);
 * eight rounds per loop so the working variables rotate by renaming, not by copying. */
static void compress(uint32_t h[8], const uint8_t *block)
{
    uint32_t w[16];
    for (uint8_t i = 0; i < 16; i++)
        w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 | (uint32_t)block[4 * i + 2] << 8 |
               block[4 * i + 3];
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (uint8_t i = 0; i < 64; i += 8) {
        ROUND(a, b, c, d, e, f, g, hh, i);
        ROUND(hh, a, b, c, d, e, f, g, i + 1);
        ROUND(g, hh, a, b, c, d, e, f, i + 2);
        ROUND(f, g, hh, a, b, c, d, e, i + 3);
        ROUND(e, f, g, hh, a, b, c, d, i + 4);
        ROUND(d, e, f, g, hh, a, b, c, i + 5);
        ROUND(c, d, e, f, g, hh, a, b, i + 6);
        ROUND(b, c, d, e, f, g, hh, a, i + 7);
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

void sha256_init(sha256_ctx *c)
{
    memcpy(c->h, H0, sizeof H0);
    c->bytes = 0;
    c->n = 0;
}

void sha256_update(sha256_ctx *c, const uint8_t *data, size_t len)
{
    while (len--) {
        c->buf[c->n++] = *data++;
        c->bytes++;
        if (c->n == 64) {
            compress(c->h, c->buf);
            c->n = 0;
        }
    }
}

void sha256_final(sha256_ctx *c, uint8_t out[32])
{
    uint32_t bits_hi = c->bytes >> 29, bits_lo = c->bytes << 3;
    uint8_t pad = 0x80;
    sha256_update(c, &pad, 1);
    pad = 0;
    while (c->n != 56)
        sha256_update(c, &pad, 1);
    uint8_t len[8] = {(uint8_t)(bits_hi >> 24), (uint8_t)(bits_hi >> 16), (uint8_t)(bits_hi >> 8), (uint8_t)bits_hi,
                      (uint8_t)(bits_lo >> 24), (uint8_t)(bits_lo >> 16), (uint8_t)(bits_lo >> 8), (uint8_t)bits_lo};
    sha256_update(c, len, 8);
    for (uint8_t i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(c->h[i] >> 24);
        out[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
        out[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
        out[4 * i + 3] = (uint8_t)c->h[i];
    }
}

void hmac_prepare(hmac_key *k, const uint8_t *key, size_t len)
{
    uint8_t block[64];
    sha256_ctx c;
    memset(block, 0, sizeof block);
    if (len > 64) {
        sha256_init(&c);
        sha256_update(&c, key, len);
        sha256_final(&c, block);
    } else {
        memcpy(block, key, len);
    }
    for (uint8_t i = 0; i < 64; i++)
        block[i] ^= 0x36;
    memcpy(k->inner, H0, sizeof H0);
    compress(k->inner, block);
    for (uint8_t i = 0; i < 64; i++)
        block[i] ^= 0x36 ^ 0x5c;
    memcpy(k->outer, H0, sizeof H0);
    compress(k->outer, block);
    memset(block, 0, sizeof block);
}

void hmac_begin(const hmac_key *k, sha256_ctx *c)
{
    memcpy(c->h, k->inner, sizeof c->h);
    c->bytes = 64;
    c->n = 0;
}

void hmac_end(const hmac_key *k, sha256_ctx *c, uint8_t out[32])
{
    uint8_t inner[32];
    sha256_final(c, inner);
    memcpy(c->h, k->outer, sizeof c->h);
    c->bytes = 64;
    c->n = 0;
    sha256_update(c, inner, 32);
    sha256_final(c, out);
}

void hmac_sha256(const hmac_key *k, const uint8_t *msg, size_t len, uint8_t out[32])
{
    sha256_ctx c;
    hmac_begin(k, &c);
    sha256_update(&c, msg, len);
    hmac_end(k, &c, out);
}
