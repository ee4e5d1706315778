package runs

import (
	"strconv"
	"strings"
	"testing"

	"github.com/svc-dev/svc/sandboxd/internal/sse"
)

// collect is a logReader that keeps what it is given.
type collect struct {
	frames []string
	ended  bool
}

func (c *collect) frame(f []byte) { c.frames = append(c.frames, string(f)) }
func (c *collect) end()           { c.ended = true }

// numbered writes a run's frames as an sseWriter that numbers them would: start, n logs, exit.
func numbered(l *runLog, n int) {
	id := int64(1)
	l.record([]byte("id: 1\nevent: start\ndata: {}\n\n"), id, 0, false)
	for i := 0; i < n; i++ {
		id++
		l.record(append(l2id(id), sse.LogFrame("stdout", []byte("0123456789"))...), id, 10, true)
	}
	id++
	l.record(append(l2id(id), "event: exit\ndata: {}\n\n"...), id, 0, false)
	l.finish()
}

func l2id(id int64) []byte { return []byte("id: " + strconv.FormatInt(id, 10) + "\n") }

func TestReplayAfterAnID(t *testing.T) {
	l := newRunLog(1 << 20)
	l.dropEvent = true
	numbered(l, 5) // ids 1 (start), 2–6 (logs), 7 (exit)
	var all, after, past collect
	l.attach(&all, 0)
	l.attach(&after, 4)
	l.attach(&past, 7)
	if len(all.frames) != 7 || !all.ended {
		t.Fatalf("a replay from the start: %d frames, ended %v", len(all.frames), all.ended)
	}
	if len(after.frames) != 3 || !strings.HasPrefix(after.frames[0], "id: 5\n") || !strings.HasPrefix(after.frames[2], "id: 7\nevent: exit") {
		t.Fatalf("after 4: %q", after.frames)
	}
	if len(past.frames) != 0 || !past.ended {
		t.Fatalf("after the exit: %q", past.frames)
	}
}

func TestDropEventSaysWhatWasLost(t *testing.T) {
	frame := len(append(l2id(2), sse.LogFrame("stdout", []byte("0123456789"))...))
	l := newRunLog(3 * frame) // start, exit and about one log frame fit
	l.dropEvent = true
	numbered(l, 10) // ids 2–11 logs, 12 exit
	var all, late collect
	l.attach(&all, 0)
	l.attach(&late, 10)
	if !strings.HasPrefix(all.frames[0], "id: 1\nevent: start") {
		t.Fatalf("start first: %q", all.frames[0])
	}
	drop := all.frames[1]
	if !strings.HasPrefix(drop, "id: ") || !strings.Contains(drop, "event: drop\n") {
		t.Fatalf("a drop event second: %q", drop)
	}
	if !strings.HasPrefix(all.frames[len(all.frames)-1], "id: 12\nevent: exit") {
		t.Fatalf("exit last: %q", all.frames)
	}
	// Kept logs follow the drop's id without a gap.
	dropID := strings.TrimPrefix(strings.SplitN(drop, "\n", 2)[0], "id: ")
	next := strings.TrimPrefix(strings.SplitN(all.frames[2], "\n", 2)[0], "id: ")
	if atoi(next) != atoi(dropID)+1 {
		t.Fatalf("drop %s then %s", dropID, next)
	}
	if strings.Contains(strings.Join(late.frames, ""), "event: drop") {
		t.Fatalf("a reader past the dropped events hears of no drop: %q", late.frames)
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
