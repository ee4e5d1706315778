package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sync"
	"syscall"
	"time"

	"github.com/svc-dev/svc/sandboxd/internal/proc"
	"github.com/svc-dev/svc/sandboxd/internal/sse"
)

// Finished install runs whose output stays readable (runrecords.go keeps the others).
const finishedLogsKept = 16

// A run's kind (core's RunKind). The registry's caps are per kind, so a new kind (a terminal)
// is one more entry here and in the caps, not a new registry.
const (
	KindInstall = "install"
	kindInvoke  = "invoke"
	kindExec    = "exec"
)

var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,128}$`)

// runSpec is what sandboxd runs: the first line of a POST /runs body (core's RunSpec).
type runSpec struct {
	RunID     string            `json:"runId"`
	Kind      string            `json:"kind"`
	Argv      []string          `json:"argv"`
	Env       map[string]string `json:"env"`
	Cwd       *string           `json:"cwd"`
	TimeoutMs *float64          `json:"timeoutMs"`
	// Detach: answer 202 at once and run with no client; the run's events stay readable
	// at GET /runs/{id}/events (detach.go).
	Detach bool `json:"detach"`
}

// parseRunSpec checks a spec the way core's RunSpec schema does; the error says what is wrong.
func parseRunSpec(line []byte) (runSpec, error) {
	var s runSpec
	if err := json.Unmarshal(line, &s); err != nil {
		return s, errors.New("not JSON of the expected shape")
	}
	switch {
	case !runIDPattern.MatchString(s.RunID):
		return s, errors.New("runId must match ^[A-Za-z0-9._-]{1,128}$")
	case s.Kind != KindInstall && s.Kind != kindInvoke && s.Kind != kindExec:
		return s, errors.New("kind must be install, invoke or exec")
	case len(s.Argv) < 1 || len(s.Argv) > 1024:
		return s, errors.New("argv must hold 1 to 1024 strings")
	case s.Cwd != nil && (len(*s.Cwd) == 0 || (*s.Cwd)[0] != '/'):
		return s, errors.New("cwd must start with /")
	case s.TimeoutMs != nil && (*s.TimeoutMs < 0 || *s.TimeoutMs != float64(int64(*s.TimeoutMs))):
		return s, errors.New("timeoutMs must be an integer ≥ 0")
	}
	if s.Cwd == nil {
		def := "/workspace"
		s.Cwd = &def
	}
	return s, nil
}

func (s runSpec) timeout() time.Duration {
	if s.TimeoutMs == nil {
		return 0
	}
	return time.Duration(*s.TimeoutMs) * time.Millisecond
}

type startEvent struct {
	InvokeID  string `json:"invokeId"`
	StartedAt string `json:"startedAt"`
}

type exitEvent struct {
	InvokeID   string `json:"invokeId"`
	ExitCode   int    `json:"exitCode"`
	DurationMs int64  `json:"durationMs"`
	Reason     string `json:"reason"`
}

// isoMillis is JavaScript's Date.toISOString.
func isoMillis(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// run is one process sandboxd runs, in flight.
type run struct {
	id        string
	kind      string
	startedAt time.Time
	log       *runLog // its frames, for readers other than the POST
	detached  bool
	exit      *exitEvent // once it has ended (under the registry's lock)
	endedAt   time.Time

	mu     sync.Mutex
	pgid   int    // 0 until started
	ending string // "canceled" or "timeout" once one was asked for
	kill   *time.Timer
}

// capExceeded is the refusal of a run over its kind's cap.
type capExceeded struct {
	limit, inflight int
	kind            string
}

func (e *capExceeded) Error() string {
	return fmt.Sprintf("this sandbox runs at most %d concurrent %ss and %d are in flight; retry after 5 seconds", e.limit, e.kind, e.inflight)
}

// runConflict: a run of that id is already in flight.
type runConflict struct{ id string }

func (e *runConflict) Error() string { return "run " + e.id + " is already in flight" }

// registry holds the processes sandboxd runs, by run id. Each runs in its own process group,
// so cancel, timeout and shutdown signal the whole tree: SIGTERM, then SIGKILL after the
// grace period. Caps are per kind (invoke's is the sandbox's maxConcurrentInvokes, exec's a
// fixed maxConcurrentExecs). Install runs are recorded,
// and the records of the last few finished ones kept, so another client can attach.
type Registry struct {
	mu       sync.Mutex
	runs     map[string]*run
	finished []*run // ended runs whose events stay readable, oldest first (runrecords.go)
	keep     Keep
	caps     map[string]int
	grace    time.Duration
	baseEnv  []string
	reaper   *proc.Reaper
	done     sync.WaitGroup
}

func NewRegistry(grace time.Duration, maxConcurrentInvokes int, baseEnv []string, r *proc.Reaper) *Registry {
	return &Registry{
		runs:    map[string]*run{},
		caps:    map[string]int{kindInvoke: maxConcurrentInvokes, kindExec: maxConcurrentExecs},
		grace:   grace,
		baseEnv: baseEnv,
		reaper:  r,
		keep:    DefaultKeep,
	}
}

func (g *Registry) capOf(kind string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.caps[kind]
}

func (g *Registry) setCap(kind string, n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.caps[kind] = n
}

func (g *Registry) inflightLocked(kind string) int {
	n := 0
	for _, r := range g.runs {
		if r.kind == kind {
			n++
		}
	}
	return n
}

// admit reserves the run's place: a *runConflict when its id is in flight, a *capExceeded
// when its kind is at its cap. Check and reservation are one step, so N concurrent
// requests let exactly the cap in.
func (g *Registry) admit(spec runSpec) (*run, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.runs[spec.RunID]; ok {
		return nil, &runConflict{spec.RunID}
	}
	if limit := g.caps[spec.Kind]; limit > 0 {
		if n := g.inflightLocked(spec.Kind); n >= limit {
			return nil, &capExceeded{limit, n, spec.Kind}
		}
	}
	r := &run{id: spec.RunID, kind: spec.Kind, startedAt: time.Now(), detached: spec.Detach}
	r.log = newRunLog(g.keep.BufferBytes)
	r.log.dropEvent = r.kind != KindInstall
	g.runs[r.id] = r
	g.done.Add(1)
	return r, nil
}

// log is the record of a run in flight or recently finished, and the run's kind.
func (g *Registry) log(id string) (*runLog, string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if r, ok := g.runs[id]; ok {
		return r.log, r.kind
	}
	for i := len(g.finished) - 1; i >= 0; i-- {
		if r := g.finished[i]; r.id == id {
			return r.log, r.kind
		}
	}
	return nil, ""
}

type Item struct {
	RunID     string `json:"runId"`
	Kind      string `json:"kind"`
	StartedAt string `json:"startedAt"`
}

func (g *Registry) List() []Item {
	g.mu.Lock()
	defer g.mu.Unlock()
	items := make([]Item, 0, len(g.runs))
	for _, r := range g.runs {
		items = append(items, Item{r.id, r.kind, isoMillis(r.startedAt)})
	}
	return items
}

// executeWhile is execute for a client: ctx ending before the run does (the client has gone)
// cancels the run.
func (g *Registry) executeWhile(ctx context.Context, r *run, spec runSpec, stdin io.Reader, out *sse.Writer) exitEvent {
	stop := context.AfterFunc(ctx, func() { g.cancel(r.id) })
	defer stop()
	return g.execute(r, spec, stdin, out)
}

// execute starts an admitted run and streams it to sse; it returns once the exit was sent.
// stdinBroken is called when the client's body fails mid-way (the client has gone).
func (g *Registry) execute(r *run, spec runSpec, stdin io.Reader, out *sse.Writer) exitEvent {
	defer g.done.Done()
	out.Number()
	out.Observe(r.log.record)
	env := append(append([]string(nil), g.baseEnv...), envList(spec.Env)...)
	pgid, exited, spawnErr := g.spawn(spec, env, stdin)
	out.Event("start", startEvent{r.id, isoMillis(r.startedAt)})
	if spawnErr == nil {
		go exited.pump(sse.Stdout, out)
		go exited.pump(sse.Stderr, out)
	}
	r.mu.Lock()
	r.pgid = pgid
	if r.ending != "" && pgid != 0 { // canceled before the process existed
		proc.SignalGroup(pgid, syscall.SIGTERM)
		r.kill = time.AfterFunc(g.grace, func() { proc.SignalGroup(pgid, syscall.SIGKILL) })
	}
	r.mu.Unlock()
	var timeout *time.Timer
	if d := spec.timeout(); d > 0 && spawnErr == nil {
		timeout = time.AfterFunc(d, func() { g.end(r, "timeout") })
	}
	var status syscall.WaitStatus
	if spawnErr == nil {
		status = <-exited.status
		// The program is done: nothing of its group may outlive it.
		proc.SignalGroup(pgid, syscall.SIGKILL)
		exited.outputs.Wait()
	}
	if timeout != nil {
		timeout.Stop()
	}
	r.mu.Lock()
	if r.kill != nil {
		r.kill.Stop()
	}
	ending := r.ending
	r.mu.Unlock()

	out.Flush(true)
	exit := exitEvent{InvokeID: r.id, DurationMs: time.Since(r.startedAt).Milliseconds(), Reason: "completed"}
	switch {
	case spawnErr != nil:
		out.Output(sse.Stderr, []byte(fmt.Sprintf("sandboxd: cannot run %s: %v\n", spec.Argv[0], spawnErr)))
		out.Flush(true)
		exit.ExitCode, exit.Reason = 127, "error"
	case ending == "canceled":
		exit.ExitCode, exit.Reason = -1, ending
	case status.Signaled():
		exit.ExitCode = 128 + int(status.Signal())
	default:
		exit.ExitCode = status.ExitStatus()
	}
	if ending != "" && spawnErr == nil {
		exit.Reason = ending
	}
	// The slot is free before the exit is sent: a client that starts its next run on
	// reading it is not refused. The run's events stay readable meanwhile.
	g.mu.Lock()
	delete(g.runs, r.id)
	r.exit, r.endedAt = &exit, time.Now()
	g.keepLocked(r)
	g.mu.Unlock()
	out.Event("exit", exit)
	out.End()
	r.log.finish()
	return exit
}

type started struct {
	status  <-chan syscall.WaitStatus
	outputs *sync.WaitGroup
	files   [2]*os.File
}

// A pipe holds 64 KiB: a program that writes faster than sandboxd sends is read 64 KiB at a
// time, each read a wakeup of the program, of sandboxd and of the client. A stream whose
// read finds that much waiting gets a pipe of hotPipeBytes and is read that much at a time
// (its events still hold coalesceBytes each). Best effort: past the user's pipe allowance
// (fs.pipe-user-pages-soft) the kernel refuses, and the pipe stays as it is.
const (
	hotPipeBytes = 1 << 20
	fSetPipeSize = 1031 // F_SETPIPE_SZ, which package syscall does not name
)

// pump sends one output stream of the process to sse until it closes. It reads whatever the
// pipe holds, up to the pipe's size at a time, and tells sse when the pipe is empty, so the
// events written meanwhile go out in one flush.
func (s started) pump(stream int, out *sse.Writer) {
	defer s.outputs.Done()
	f := s.files[stream]
	defer f.Close()
	raw, err := f.SyscallConn()
	if err != nil {
		return
	}
	buf := make([]byte, sse.CoalesceBytes)
	grown := false
	for {
		n, drained, done := readReady(raw, buf)
		if n > 0 {
			out.Output(stream, buf[:n])
		}
		if done {
			return
		}
		if drained {
			out.Drained()
		} else if !grown {
			grown = true
			if size := growPipe(raw, hotPipeBytes); size > len(buf) {
				buf = make([]byte, size)
			}
		}
	}
}

// growPipe asks for a pipe of size bytes; it returns the pipe's size then, 0 when refused.
func growPipe(raw syscall.RawConn, size int) int {
	got := 0
	_ = raw.Control(func(fd uintptr) {
		n, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, fSetPipeSize, uintptr(size))
		if errno == 0 {
			got = int(n)
		}
	})
	return got
}

// readReady waits until the pipe has data, then reads until buf is full or the pipe is
// empty (drained). done: the pipe is closed or failed.
func readReady(raw syscall.RawConn, buf []byte) (n int, drained, done bool) {
	err := raw.Read(func(fd uintptr) bool {
		for n < len(buf) {
			m, err := syscall.Read(int(fd), buf[n:])
			switch {
			case err == syscall.EINTR:
				continue
			case err == syscall.EAGAIN:
				if n == 0 {
					return false // nothing yet: wait until the pipe is readable
				}
				drained = true
				return true
			case err != nil || m == 0:
				done = true
				return true
			}
			n += m
		}
		return true
	})
	if err != nil {
		done = true
	}
	return n, drained, done
}

// spawn starts the process in its own group with piped stdio and pumps stdin in.
func (g *Registry) spawn(spec runSpec, env []string, stdin io.Reader) (int, started, error) {
	path, err := proc.LookPath(spec.Argv[0], env)
	if err != nil {
		return 0, started{}, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return 0, started{}, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return 0, started{}, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return 0, started{}, err
	}
	pid, status, err := g.reaper.Start(func() (int, error) {
		return proc.Spawn(path, spec.Argv, *spec.Cwd, env, []*os.File{inR, outW, errW}, g.reaper.Cred)
	})
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return 0, started{}, err
	}
	var outputs sync.WaitGroup
	outputs.Add(2)
	go func() {
		// The program may exit without reading its stdin: a failed write just stops the copy.
		_, _ = io.Copy(inW, stdin)
		inW.Close()
	}()
	return pid, started{status, &outputs, [2]*os.File{outR, errR}}, nil
}

func envList(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	return out
}

// cancel ends a run in flight; false when there is none of that id.
func (g *Registry) cancel(id string) bool {
	g.mu.Lock()
	r, ok := g.runs[id]
	g.mu.Unlock()
	if !ok {
		return false
	}
	g.end(r, "canceled")
	return true
}

// end sends SIGTERM to the run's group, then SIGKILL after the grace period.
func (g *Registry) end(r *run, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ending != "" {
		return
	}
	r.ending = why
	if r.pgid == 0 {
		return // not started yet: execute ends it once it is
	}
	pgid := r.pgid
	proc.SignalGroup(pgid, syscall.SIGTERM)
	r.kill = time.AfterFunc(g.grace, func() { proc.SignalGroup(pgid, syscall.SIGKILL) })
}

// shutdown ends every run (SIGTERM, SIGKILL after the grace) and waits for all of them.
func (g *Registry) Shutdown() {
	g.mu.Lock()
	all := make([]*run, 0, len(g.runs))
	for _, r := range g.runs {
		all = append(all, r)
	}
	g.mu.Unlock()
	for _, r := range all {
		g.end(r, "canceled")
	}
	g.done.Wait()
}
