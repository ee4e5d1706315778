package sse

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// completeUTF8 splits b into the longest prefix that ends on a character boundary and the
// tail of a multi-byte character that has not fully arrived yet (at most 3 bytes), so a
// character split across two reads is sent whole. Invalid bytes are not held back: the JSON
// encoding turns them into U+FFFD, as a StringDecoder does.
func CompleteUTF8(b []byte) (complete, rest []byte) {
	for i := 1; i <= 3 && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < 0x80 {
			break // ASCII: nothing pending
		}
		if c >= 0xC0 { // a lead byte i bytes from the end
			need := 0
			switch {
			case c > 0xF4: // never a lead byte
			case c >= 0xF0:
				need = 4
			case c >= 0xE0:
				need = 3
			case c >= 0xC2:
				need = 2
			}
			if need > i {
				return b[:len(b)-i], b[len(b)-i:]
			}
			break
		}
	}
	return b, nil
}

const hexDigits = "0123456789abcdef"

// Words of 8 bytes, for testing 8 bytes of output at once.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// specialBytes marks (with the high bit of its byte) each of the 8 bytes of x, read
// little-endian, that needs a look of its own: a control character, quote or backslash (to
// escape) or a byte ≥ 0x80 (UTF-8 to check). Zero when the word is plain text. The classic
// has-zero/has-less bit tricks: a mark may be wrong only above a true one, so the lowest
// mark is always exact.
func specialBytes(x uint64) uint64 {
	quote := x ^ (ones * '"')
	slash := x ^ (ones * '\\')
	return ((x-ones*0x20)&^x | (quote-ones)&^quote | (slash-ones)&^slash | x) & highs
}

// appendJSONString appends s as a JSON string: the bytes JSON.stringify would give for the
// same text (no HTML escaping; invalid UTF-8 becomes U+FFFD), without reflection, since every
// byte of a run's output passes through here. Plain text is skipped 8 bytes at a time and
// copied in one piece.
func appendJSONString(dst []byte, s []byte) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			m := specialBytes(binary.LittleEndian.Uint64(s[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		}
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\ufffd"...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendLogFrame appends the SSE `log` event for a chunk of one stream's output.
func appendLogFrame(dst []byte, stream string, data []byte) []byte {
	dst = append(dst, "event: log\ndata: {\"stream\":\""...)
	dst = append(dst, stream...)
	dst = append(dst, "\",\"data\":"...)
	dst = appendJSONString(dst, data)
	return append(dst, "}\n\n"...)
}

// logFrame is the SSE `log` event for a chunk of one stream's output, in a slice of its own.
func LogFrame(stream string, data []byte) []byte {
	return appendLogFrame(make([]byte, 0, len(data)+64), stream, data)
}

// eventEnd is how much of b goes into an event that has room for max more bytes: max, or
// less so as not to split a character (0 when max cuts its first character).
func EventEnd(b []byte, max int) int {
	if len(b) <= max {
		return len(b)
	}
	complete, _ := CompleteUTF8(b[:max])
	return len(complete)
}
