package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
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

// streamServer is sandboxd's HTTP surface on a test server, with no token to check.
func streamServer(t testing.TB) (*httptest.Server, string) {
	dir := t.TempDir()
	runs := newRegistry(time.Second, 4, os.Environ(), newReaper())
	srv := httptest.NewServer(&server{authorized: func(string) bool { return true }, workspace: dir, keepalive: time.Hour, runs: runs})
	t.Cleanup(srv.Close)
	return srv, dir
}

type sseEvent struct{ name, data string }

// streamRun posts a run of script and reads its events; with raw it only counts the bytes.
func streamRun(t testing.TB, url, id, dir, script string) []sseEvent {
	spec, _ := json.Marshal(map[string]any{"runId": id, "kind": "exec", "argv": []string{"sh", "-c", script}, "cwd": dir})
	res, err := http.Post(url+"/runs", "application/x-ndjson", bytes.NewReader(append(spec, '\n')))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d", res.StatusCode)
	}
	var events []sseEvent
	r := bufio.NewReaderSize(res.Body, 256*1024)
	var ev sseEvent
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			return events
		}
		if err != nil {
			t.Fatal(err)
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if ev.name != "" {
				events = append(events, ev)
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			ev.name = line[len("event: "):]
		case strings.HasPrefix(line, "data: "):
			ev.data = line[len("data: "):]
		}
	}
}

// A fast writer's output arrives whole and in order, in events of at most 64 KiB that never
// split a character, with the stream's own bytes only.
func TestStreamKeepsTheBytesAndCharacters(t *testing.T) {
	srv, dir := streamServer(t)
	// 3 MiB of 3- and 4-byte characters and newlines, written in odd-sized pieces.
	script := `l=$(printf '€😀é%.0s' $(seq 60)); i=0; while [ $i -lt 6000 ]; do i=$((i+1)); echo "$l"; done | dd bs=4093 status=none; echo done >&2`
	events := streamRun(t, srv.URL, "chars", dir, script)
	var stdout, stderr strings.Builder
	logs := 0
	for _, e := range events {
		if e.name != "log" {
			continue
		}
		logs++
		var l logEvent
		if err := json.Unmarshal([]byte(e.data), &l); err != nil {
			t.Fatalf("log event %q: %v", e.data, err)
		}
		if strings.ContainsRune(l.Data, utf8.RuneError) {
			t.Fatalf("a character was split across events")
		}
		if len(l.Data) > coalesceBytes {
			t.Fatalf("an event of %d bytes", len(l.Data))
		}
		if l.Stream == "stdout" {
			stdout.WriteString(l.Data)
		} else {
			stderr.WriteString(l.Data)
		}
	}
	want := strings.Repeat(strings.Repeat("€😀é", 60)+"\n", 6000)
	if stdout.String() != want {
		t.Fatalf("stdout: %d bytes, want %d", stdout.Len(), len(want))
	}
	if stderr.String() != "done\n" {
		t.Fatalf("stderr %q", stderr.String())
	}
	if first, last := events[0].name, events[len(events)-1].name; first != "start" || last != "exit" {
		t.Fatalf("events from %s to %s", first, last)
	}
	if logs > len(want)/1000 {
		t.Fatalf("%d log events for %d bytes: not coalesced", logs, len(want))
	}
}

// One read of far more than an event (what a grown pipe gives) becomes events of at most
// coalesceBytes, cut on character boundaries, after the other stream's queued output and
// in order, all of it reaching the client.
func TestLargeReadsBecomeWholeEvents(t *testing.T) {
	rec := httptest.NewRecorder()
	sse := newSSEWriter(rec, time.Hour, nil)
	var big []byte
	for len(big) < 5*coalesceBytes {
		big = append(big, "€😀é-"...) // 3+4+2+1 bytes: a cut at 64 KiB lands inside a character
	}
	sse.output(stderr, []byte("first\n"))
	sse.output(stdout, big[:1000]) // queued, then topped up to a full event by the next read
	sse.output(stdout, big[1000:len(big)-7])
	sse.output(stdout, big[len(big)-7:])
	sse.output(stderr, []byte("last\n"))
	sse.flush(true)
	sse.end()

	var out, errs strings.Builder
	var order []string
	for _, frame := range strings.Split(rec.Body.String(), "\n\n") {
		data, ok := strings.CutPrefix(frame, "event: log\ndata: ")
		if !ok {
			continue
		}
		var l logEvent
		if err := json.Unmarshal([]byte(data), &l); err != nil {
			t.Fatalf("log event %q: %v", data[:min(len(data), 80)], err)
		}
		if len(l.Data) > coalesceBytes || strings.ContainsRune(l.Data, utf8.RuneError) {
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

// go test -bench Stream -benchtime 5x: 64 MiB of 80-byte text lines through POST /runs, as
// make bench-sandboxd streams them, read by a client that only splits the events.
func BenchmarkStream(b *testing.B) {
	srv, dir := streamServer(b)
	const size = 64 << 20
	script := fmt.Sprintf("yes %s | head -c %d", strings.Repeat("x", 79), size)
	b.SetBytes(size)
	for i := 0; b.Loop(); i++ {
		streamRun(b, srv.URL, fmt.Sprintf("bench-%d", i), dir, script)
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
