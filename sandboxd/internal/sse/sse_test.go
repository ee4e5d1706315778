package sse

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// jsonStringify is the reference for appendJSONString: encoding/json without HTML escaping,
// which also escapes U+2028 and U+2029 where JSON.stringify does not.
func jsonStringify(s []byte) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(string(s))
	out := strings.TrimSuffix(b.String(), "\n")
	return strings.NewReplacer(`\u2028`, "\u2028", `\u2029`, "\u2029", `\ufffd`, "\ufffd").Replace(out)
}

// The 8-bytes-at-a-time scan must find every byte that needs a look, wherever it sits in a word.
func TestAppendJSONStringMatchesReference(t *testing.T) {
	pieces := []string{"a", "xyz01234", "\n", "\"", "\\", "\x00", "\x1f", "\x7f", " ", "é", "€", "😀",
		"\u2028", "\xff", "\xe2\x82", "<>&", "\t", "\r"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		var in []byte
		for n := rng.IntN(40); n > 0; n-- {
			in = append(in, pieces[rng.IntN(len(pieces))]...)
		}
		if got, want := string(appendJSONString(nil, in)), jsonStringify(in); got != want {
			t.Fatalf("appendJSONString(%q) = %s; want %s", in, got, want)
		}
	}
}

// One read of far more than an event (what a grown pipe gives) becomes events of at most
// coalesceBytes, cut on character boundaries, after the other stream's queued output and
// in order, all of it reaching the client.
func TestLargeReadsBecomeWholeEvents(t *testing.T) {
	rec := httptest.NewRecorder()
	w := New(rec, time.Hour, nil)
	var big []byte
	for len(big) < 5*CoalesceBytes {
		big = append(big, "€😀é-"...) // 3+4+2+1 bytes: a cut at 64 KiB lands inside a character
	}
	w.Output(Stderr, []byte("first\n"))
	w.Output(Stdout, big[:1000]) // queued, then topped up to a full event by the next read
	w.Output(Stdout, big[1000:len(big)-7])
	w.Output(Stdout, big[len(big)-7:])
	w.Output(Stderr, []byte("last\n"))
	w.Flush(true)
	w.End()

	var out, errs strings.Builder
	var order []string
	for _, frame := range strings.Split(rec.Body.String(), "\n\n") {
		data, ok := strings.CutPrefix(frame, "event: log\ndata: ")
		if !ok {
			continue
		}
		var l LogEvent
		if err := json.Unmarshal([]byte(data), &l); err != nil {
			t.Fatalf("log event %q: %v", data[:min(len(data), 80)], err)
		}
		if len(l.Data) > CoalesceBytes || strings.ContainsRune(l.Data, utf8.RuneError) {
			t.Fatalf("an event of %d bytes, whole characters %v", len(l.Data), utf8.ValidString(l.Data))
		}
		if l.Stream == "stdout" {
			out.WriteString(l.Data)
		} else {
			errs.WriteString(l.Data)
		}
		if len(order) == 0 || order[len(order)-1] != l.Stream {
			order = append(order, l.Stream)
		}
	}
	if out.String() != string(big) || errs.String() != "first\nlast\n" {
		t.Fatalf("stdout %d bytes (want %d), stderr %q", out.Len(), len(big), errs.String())
	}
	if strings.Join(order, ",") != "stderr,stdout,stderr" {
		t.Fatalf("streams in the order %v", order)
	}
}

func BenchmarkAppendJSONString(b *testing.B) {
	text := bytes.Repeat([]byte(strings.Repeat("x", 79)+"\n"), 64*1024/80)
	dst := make([]byte, 0, 2*len(text))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		dst = appendJSONString(dst[:0], text)
	}
}

func TestCompleteUTF8(t *testing.T) {
	euro := []byte("€")  // 3 bytes
	smile := []byte("😀") // 4 bytes
	cases := []struct {
		name           string
		in             []byte
		complete, rest string
	}{
		{"ascii", []byte("abc"), "abc", ""},
		{"empty", nil, "", ""},
		{"whole characters", []byte("é€😀"), "é€😀", ""},
		{"1 of 3 bytes", append([]byte("a"), euro[:1]...), "a", string(euro[:1])},
		{"2 of 3 bytes", append([]byte("a"), euro[:2]...), "a", string(euro[:2])},
		{"3 of 4 bytes", append([]byte("a"), smile[:3]...), "a", string(smile[:3])},
		{"a lone continuation byte is not held", []byte{'a', 0x80}, "a\x80", ""},
		{"an invalid lead byte is not held", []byte{'a', 0xFF}, "a\xff", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			complete, rest := CompleteUTF8(c.in)
			if string(complete) != c.complete || string(rest) != c.rest {
				t.Fatalf("completeUTF8(%q) = %q, %q; want %q, %q", c.in, complete, rest, c.complete, c.rest)
			}
		})
	}
	// Every split of a mixed text, fed in two reads, gives the text back with no piece
	// holding half a character.
	text := []byte("aé€😀z")
	for i := 0; i <= len(text); i++ {
		first, rest := CompleteUTF8(text[:i])
		second, tail := CompleteUTF8(append(append([]byte(nil), rest...), text[i:]...))
		if !utf8.Valid(first) || !utf8.Valid(second) || len(tail) != 0 || string(first)+string(second) != string(text) {
			t.Fatalf("split at %d: %q + %q (+%q)", i, first, second, tail)
		}
	}
}

// Cutting a long read into events: each cut lands on a character boundary, as close to the
// limit as that allows.
func TestEventEnd(t *testing.T) {
	text := []byte("ab€😀é")
	cases := []struct{ max, want int }{
		{100, len(text)}, // all of it fits
		{2, 2},
		{3, 2}, // 1 of €'s 3 bytes
		{4, 2},
		{5, 5},
		{8, 5}, // 3 of 😀's 4 bytes
		{9, 9},
	}
	for _, c := range cases {
		if got := EventEnd(text, c.max); got != c.want {
			t.Errorf("eventEnd(%q, %d) = %d; want %d", text, c.max, got, c.want)
		}
	}
	if got := EventEnd([]byte("😀"), 2); got != 0 {
		t.Errorf("a cut inside the first character: %d; want 0", got)
	}
}

func TestAppendJSONString(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain", `"plain"`},
		{"a\"b\\c", `"a\"b\\c"`},
		{"line\n\ttab\r", `"line\n\ttab\r"`},
		{"\x00\x1f", `"\u0000\u001f"`},
		{"<&>", `"<&>"`},
		{"é€😀", `"é€😀"`},
		{"bad\xffbyte", "\"bad\ufffdbyte\""},
	}
	for _, c := range cases {
		if got := string(appendJSONString(nil, []byte(c.in))); got != c.want {
			t.Errorf("appendJSONString(%q) = %s; want %s", c.in, got, c.want)
		}
	}
}
