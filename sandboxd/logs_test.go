package main

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestLogRingKeepsTheTail(t *testing.T) {
	l := newLogRing(10)
	l.write(stdout, []byte("abc"))
	l.write(stderr, []byte("DEF"))
	l.write(stdout, []byte("ghi"))
	if got := l.snapshot(); len(got.Entries) != 3 || got.Truncated || got.DroppedBytes != 0 {
		t.Fatalf("snapshot = %+v", got)
	}
	l.write(stdout, []byte("jklm")) // 13 bytes: the oldest 3 go
	got := l.snapshot()
	want := []logEntry{{"stderr", "DEF"}, {"stdout", "ghijklm"}}
	if len(got.Entries) != len(want) || !got.Truncated || got.DroppedBytes != 3 {
		t.Fatalf("snapshot = %+v; want %v, dropped 3", got, want)
	}
	for i := range want {
		if got.Entries[i] != want[i] {
			t.Fatalf("entry %d = %+v; want %+v", i, got.Entries[i], want[i])
		}
	}
}

func TestLogRingNeverSplitsACharacter(t *testing.T) {
	l := newLogRing(5)
	euro := "€" // 3 bytes
	l.write(stdout, []byte(euro[:1]))
	if got := l.snapshot(); len(got.Entries) != 0 {
		t.Fatalf("half a character was kept: %+v", got)
	}
	l.write(stdout, []byte(euro[1:]+"ab"))
	l.write(stdout, []byte("c")) // 6 bytes: cutting one would leave half the €
	got := l.snapshot()
	if len(got.Entries) != 1 || got.Entries[0].Data != "abc" || got.DroppedBytes != 3 {
		t.Fatalf("snapshot = %+v; want abc, dropped 3", got)
	}
}

// A follower gets the kept output first, then what is written after it started following.
func TestLogRingFollow(t *testing.T) {
	l := newLogRing(1024)
	l.write(stdout, []byte("before\n"))
	f := newLogFollower()
	stop := l.follow(f)
	l.write(stderr, []byte("after\n"))
	stop()
	l.write(stdout, []byte("unseen\n"))
	f.mu.Lock()
	var frames []string
	for _, fr := range f.frames {
		frames = append(frames, string(fr))
	}
	f.mu.Unlock()
	want := []string{
		"event: log\ndata: {\"stream\":\"stdout\",\"data\":\"before\\n\"}\n\n",
		"event: log\ndata: {\"stream\":\"stderr\",\"data\":\"after\\n\"}\n\n",
	}
	if strings.Join(frames, "|") != strings.Join(want, "|") {
		t.Fatalf("frames = %q; want %q", frames, want)
	}
}

func TestExecCap(t *testing.T) {
	g := newRegistry(time.Second, 1, nil, nil)
	for i := 0; i < maxConcurrentExecs; i++ {
		if _, err := g.admit(runSpec{RunID: "x" + strings.Repeat("i", i+1), Kind: kindExec, Argv: []string{"true"}}); err != nil {
			t.Fatalf("exec %d: %v", i+1, err)
		}
	}
	_, err := g.admit(runSpec{RunID: "over", Kind: kindExec, Argv: []string{"true"}})
	var capped *capExceeded
	if !errors.As(err, &capped) || capped.limit != 32 || capped.inflight != 32 {
		t.Fatalf("the 33rd exec: %v; want capExceeded{32, 32}", err)
	}
	if want := "this sandbox runs at most 32 concurrent execs and 32 are in flight; retry after 5 seconds"; err.Error() != want {
		t.Fatalf("message %q; want %q", err.Error(), want)
	}
	// Invokes have their own cap: 32 execs in flight take none of it.
	if _, err := g.admit(runSpec{RunID: "inv", Kind: kindInvoke, Argv: []string{"true"}}); err != nil {
		t.Fatalf("an invoke beside 32 execs: %v", err)
	}
}
