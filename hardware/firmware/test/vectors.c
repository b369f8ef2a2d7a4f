/* The firmware's own COBS, CRC and HMAC code compiled for the host: reads "op hex [hex]" lines on stdin and prints
 * each result in hex, so tests/firmware checks the C side against the same vectors.json as the Python side. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../src/wire.h"

static size_t unhex(const char *s, uint8_t *out)
{
    size_t n = 0;
    while (s[0] && s[1] && s[0] != '\n' && s[0] != ' ') {
        unsigned v;
        sscanf(s, "%2x", &v);
        out[n++] = (uint8_t)v;
        s += 2;
    }
    return n;
}

static void hex(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%02x", b[i]);
    printf("\n");
}

int main(void)
{
    static char line[20000];
    static uint8_t a[5000], b[5000], out[6000];
    while (fgets(line, sizeof line, stdin)) {
        char op[16];
        char *arg = strchr(line, ' ');
        if (!arg || sscanf(line, "%15s", op) != 1)
            continue;
        arg++;
        if (*arg == '-')
            arg++; /* "-" stands for an empty input */
        size_t n = unhex(arg, a);
        if (!strcmp(op, "crc")) {
            printf("%04x\n", crc16_frame(a, n));
        } else if (!strcmp(op, "cobs_enc")) {
            hex(out, cobs_encode(a, n, out));
        } else if (!strcmp(op, "cobs_dec")) {
            int m = cobs_decode(a, n);
            if (m < 0)
                printf("error\n");
            else
                hex(a, (size_t)m);
        } else if (!strcmp(op, "sha256")) {
            sha256_ctx c;
            sha256_init(&c);
            sha256_update(&c, a, n);
            sha256_final(&c, out);
            hex(out, 32);
        } else if (!strcmp(op, "hmac")) {
            char *msg = strchr(arg, ' ');
            size_t m = msg ? unhex(msg[1] == '-' ? msg + 2 : msg + 1, b) : 0;
            hmac_key k;
            hmac_prepare(&k, a, n);
            hmac_sha256(&k, b, m, out);
            hex(out, 32);
        } else {
            printf("unknown op\n");
        }
        fflush(stdout);
    }
    return 0;
}
