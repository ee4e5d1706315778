// Package template supervises the template's own command: sandboxd's child, restarted with
// a backoff whenever it ends.
package template

import (
	"context"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/svc-dev/svc/sandboxd/internal/logs"
	"github.com/svc-dev/svc/sandboxd/internal/proc"
	"github.com/svc-dev/svc/sandboxd/internal/sse"
)

// Restart backoff of the template's process, as a kubelet restarts a container: 1 s, doubling,
// capped; a process that stayed up for resetAfter starts again from 1 s.
const (
	backoffFirst = time.Second
	backoffMax   = 5 * time.Minute
	resetAfter   = 10 * time.Minute
)

// templateProcess is the template's own command, started by sandboxd as its child with the
// container's stdin, in its own process group, and restarted with a backoff whenever it
// ends. Its stdout and stderr go to the container's (teed through logs, which keeps the
// recent output for GET /logs). restarts counts those restarts; sandboxd reports it on /healthz.
type Process struct {
	argv   []string
	dir    string
	env    []string
	reaper *proc.Reaper
	grace  time.Duration
	logs   *logs.Ring

	mu       sync.Mutex
	pid      int
	restarts int
	stopping bool
	ctx      context.Context // ends when stop is called
	stop     context.CancelFunc
	done     chan struct{}
}

type Status struct {
	Running  bool `json:"running"`
	Restarts int  `json:"restarts"`
}

func Start(argv []string, dir string, env []string, r *proc.Reaper, grace time.Duration, logs *logs.Ring) *Process {
	t := &Process{argv: argv, dir: dir, env: env, reaper: r, grace: grace, logs: logs, done: make(chan struct{})}
	t.ctx, t.stop = context.WithCancel(context.Background())
	go t.supervise()
	return t
}

func (t *Process) Status() Status {
	t.mu.Lock()
	defer t.mu.Unlock()
	return Status{Running: t.pid != 0, Restarts: t.restarts}
}

func (t *Process) supervise() {
	defer close(t.done)
	backoff := backoffFirst
	for {
		began := time.Now()
		status, err := t.once()
		t.mu.Lock()
		t.pid = 0
		stopping := t.stopping
		t.mu.Unlock()
		if stopping {
			return
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "sandboxd: template command %s: %v\n", t.argv[0], err)
		} else {
			fmt.Fprintf(os.Stderr, "sandboxd: template command %s ended (%s); restarting in %s\n", t.argv[0], describe(status), backoff)
		}
		if time.Since(began) >= resetAfter {
			backoff = backoffFirst
		}
		select {
		case <-t.ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, backoffMax)
		t.mu.Lock()
		if t.stopping {
			t.mu.Unlock()
			return
		}
		t.restarts++
		t.mu.Unlock()
	}
}

// once runs the command to its end.
func (t *Process) once() (syscall.WaitStatus, error) {
	path, err := proc.LookPath(t.argv[0], t.env)
	if err != nil {
		return 0, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return 0, err
	}
	t.mu.Lock()
	if t.stopping {
		t.mu.Unlock()
		outR.Close()
		outW.Close()
		errR.Close()
		errW.Close()
		return 0, nil
	}
	pid, exited, err := t.reaper.Start(func() (int, error) {
		return proc.Spawn(path, t.argv, t.dir, t.env, []*os.File{os.Stdin, outW, errW}, t.reaper.Cred)
	})
	t.pid = pid
	t.mu.Unlock()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return 0, err
	}
	// Each tee ends when every holder of its pipe's write end is gone: the process and any
	// child it left running. A restart does not wait for them.
	go t.logs.Tee(sse.Stdout, outR, os.Stdout)
	go t.logs.Tee(sse.Stderr, errR, os.Stderr)
	return <-exited, nil
}

func describe(s syscall.WaitStatus) string {
	if s.Signaled() {
		return fmt.Sprintf("killed by signal %d", int(s.Signal()))
	}
	return fmt.Sprintf("exit code %d", s.ExitStatus())
}

// stop sends SIGTERM to the process group, SIGKILL after the grace, and returns when it is gone.
func (t *Process) Stop() {
	t.mu.Lock()
	t.stopping = true
	pid := t.pid
	t.mu.Unlock()
	t.stop()
	if pid != 0 {
		proc.SignalGroup(pid, syscall.SIGTERM)
		kill := time.AfterFunc(t.grace, func() { proc.SignalGroup(pid, syscall.SIGKILL) })
		defer kill.Stop()
	}
	<-t.done
}
