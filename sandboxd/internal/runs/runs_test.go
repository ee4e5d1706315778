package runs

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestExecCap(t *testing.T) {
	g := NewRegistry(time.Second, 1, nil, nil)
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

func TestTheCap(t *testing.T) {
	spec := func(id, kind string) runSpec { return runSpec{RunID: id, Kind: kind, Argv: []string{"true"}} }
	g := NewRegistry(time.Second, 2, nil, nil)
	steps := []struct {
		spec                runSpec
		wantLimit, wantSeen int // 0: admitted
		conflict            bool
	}{
		{spec: spec("a", kindInvoke)},
		{spec: spec("a", kindInvoke), conflict: true},
		{spec: spec("b", kindInvoke)},
		{spec: spec("c", kindInvoke), wantLimit: 2, wantSeen: 2},
		{spec: spec("d", kindExec)},    // exec has a cap of its own
		{spec: spec("e", KindInstall)}, // nor install
	}
	for i, s := range steps {
		_, err := g.admit(s.spec)
		var capped *capExceeded
		var conflict *runConflict
		switch {
		case s.conflict:
			if !errors.As(err, &conflict) {
				t.Fatalf("step %d: %v; want a conflict", i, err)
			}
		case s.wantLimit > 0:
			if !errors.As(err, &capped) || capped.limit != s.wantLimit || capped.inflight != s.wantSeen {
				t.Fatalf("step %d: %v; want capExceeded{%d, %d}", i, err, s.wantLimit, s.wantSeen)
			}
			want := "this sandbox runs at most 2 concurrent invokes and 2 are in flight; retry after 5 seconds"
			if capped.Error() != want {
				t.Fatalf("message %q; want %q", capped.Error(), want)
			}
		case err != nil:
			t.Fatalf("step %d: %v; want admitted", i, err)
		}
	}
	g.setCap(kindInvoke, 3)
	if _, err := g.admit(spec("c", kindInvoke)); err != nil {
		t.Fatalf("after raising the cap: %v", err)
	}
}
