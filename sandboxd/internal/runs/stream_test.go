package runs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/svc-dev/svc/sandboxd/internal/proc"
	"github.com/svc-dev/svc/sandboxd/internal/sse"
)

// streamServer is POST /runs on a test server, with no token to check.
func streamServer(t testing.TB) (*httptest.Server, string) {
	dir := t.TempDir()
	s := &Server{Runs: NewRegistry(time.Second, 4, os.Environ(), proc.NewReaper()), Keepalive: time.Hour}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /runs", s.StartRun)
	srv := httptest.NewServer(mux)
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
		var l sse.LogEvent
		if err := json.Unmarshal([]byte(e.data), &l); err != nil {
			t.Fatalf("log event %q: %v", e.data, err)
		}
		if strings.ContainsRune(l.Data, utf8.RuneError) {
			t.Fatalf("a character was split across events")
		}
		if len(l.Data) > sse.CoalesceBytes {
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
