/* Byte-level pieces of the wire protocol (docs/protocol.md section 1), portable C: built for the AVR and, for the
 * shared test vectors, for the host. */
#ifndef WIRE_H
#define WIRE_H
#include <stdint.h>
#include <stddef.h>

/* The CRC register: poly 0x1021, init 0xFFFF, no reflection (CRC-16/CCITT-FALSE when read without a final xor,
   as the command window's args check is). */
uint16_t crc16_update(uint16_t crc, const uint8_t *data, size_t len);
#define CRC16_INIT 0xFFFFu
/* The frame check, CRC-16/GENIBUS: the same register with a final xor of 0xFFFF ("123456789" -> 0xD64E). Without
   the xor a frame that lost the COBS code byte standing for a CRC's trailing 0x00 can check as a shorter body
   (docs/protocol.md, section 1). */
uint16_t crc16_frame(const uint8_t *data, size_t len);

/* COBS decode in place; returns the decoded length, or -1 if the encoding is damaged. */
int cobs_decode(uint8_t *buf, size_t len);
/* COBS encode src, a byte at a time through put (no delimiter): what the firmware sends, as the `cobs` package
 * encodes it. cobs_encode does the same into dst (len + len/254 + 1 bytes); returns the encoded length. */
void cobs_stream(const uint8_t *src, size_t len, void (*put)(uint8_t));
size_t cobs_encode(const uint8_t *src, size_t len, uint8_t *dst);

/* SHA-256 and HMAC-SHA256 (FIPS 180-4, RFC 2104). */
typedef struct {
    uint32_t h[8];
    uint32_t bytes; /* total length so far */
    uint8_t buf[64];
    uint8_t n;
} sha256_ctx;

void sha256_init(sha256_ctx *c);
void sha256_update(sha256_ctx *c, const uint8_t *data, size_t len);
void sha256_final(sha256_ctx *c, uint8_t out[32]);

/* An HMAC key prepared once: the hash states after the inner and outer padded key blocks, so each MAC over a
 * short message costs two compressions instead of four. */
typedef struct {
    uint32_t inner[8];
    uint32_t outer[8];
} hmac_key;

void hmac_prepare(hmac_key *k, const uint8_t *key, size_t len);
void hmac_begin(const hmac_key *k, sha256_ctx *c);
void hmac_end(const hmac_key *k, sha256_ctx *c, uint8_t out[32]);
void hmac_sha256(const hmac_key *k, const uint8_t *msg, size_t len, uint8_t out[32]);
#endif
