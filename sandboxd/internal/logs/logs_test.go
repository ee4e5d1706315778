package logs

import (
	"strings"
	"testing"

	"github.com/svc-dev/svc/sandboxd/internal/sse"
)

func TestLogRingKeepsTheTail(t *testing.T) {
	l := NewRing(10)
	l.write(sse.Stdout, []byte("abc"))
	l.write(sse.Stderr, []byte("DEF"))
	l.write(sse.Stdout, []byte("ghi"))
	if got := l.snapshot(); len(got.Entries) != 3 || got.Truncated || got.DroppedBytes != 0 {
		t.Fatalf("snapshot = %+v", got)
	}
	l.write(sse.Stdout, []byte("jklm")) // 13 bytes: the oldest 3 go
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
	l := NewRing(5)
	euro := "€" // 3 bytes
	l.write(sse.Stdout, []byte(euro[:1]))
	if got := l.snapshot(); len(got.Entries) != 0 {
		t.Fatalf("half a character was kept: %+v", got)
	}
	l.write(sse.Stdout, []byte(euro[1:]+"ab"))
	l.write(sse.Stdout, []byte("c")) // 6 bytes: cutting one would leave half the €
	got := l.snapshot()
	if len(got.Entries) != 1 || got.Entries[0].Data != "abc" || got.DroppedBytes != 3 {
		t.Fatalf("snapshot = %+v; want abc, dropped 3", got)
	}
}

// A follower gets the kept output first, then what is written after it started following.
func TestLogRingFollow(t *testing.T) {
	l := NewRing(1024)
	l.write(sse.Stdout, []byte("before\n"))
	f := newLogFollower()
	stop := l.follow(f)
	l.write(sse.Stderr, []byte("after\n"))
	stop()
	l.write(sse.Stdout, []byte("unseen\n"))
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
