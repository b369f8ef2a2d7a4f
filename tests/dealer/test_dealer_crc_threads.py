"""The shared CRC is right from many threads at once (issue 13, item 7: the simulated device's three threads and a
host in the same process got 2,898 wrong CRCs in 80,000 from one shared calculator)."""

import sys
import threading

from dealer_protocol.framing import FrameError, crc16, decode_frame, encode_frame


def test_crc_from_four_threads_at_once():
    bodies = [bytes([i]) * 200 for i in range(128)]
    expected = [crc16(b) for b in bodies]
    wrong = [0]
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)  # switch threads as often as the interpreter allows: the race shows at once
    try:
        def work():
            for _ in range(4):
                for b, e in zip(bodies, expected, strict=True):
                    try:
                        if crc16(b) != e or decode_frame(encode_frame(b)[:-1]) != b:
                            wrong[0] += 1
                    except FrameError:  # a good frame refused: its CRC computed wrong on one side
                        wrong[0] += 1

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert wrong[0] == 0
